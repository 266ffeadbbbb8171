import { describe, expect, it } from 'vitest';
import { terminalProgress } from './progress';

const stream = (isTTY: boolean) => {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
};

describe('the progress line', () => {
  it('is redrawn in place on a terminal and cleared when done', () => {
    const s = stream(true);
    const progress = terminalProgress(s, 0);
    progress.update('10 lines written');
    progress.update('20 lines written');
    progress.done();
    expect(s.written).toEqual(['\r10 lines written\x1b[K', '\r20 lines written\x1b[K', '\r\x1b[K']);
  });

  it('is drawn at most once an interval', () => {
    const s = stream(true);
    const progress = terminalProgress(s, 60_000);
    for (let i = 0; i < 100; i++) progress.update(`${i}`);
    expect(s.written).toEqual(['\r0\x1b[K']);
  });

  it('writes nothing when the stream is not a terminal', () => {
    const s = stream(false);
    const progress = terminalProgress(s, 0);
    progress.update('10 lines written');
    progress.done();
    expect(s.written).toEqual([]);
  });
});
