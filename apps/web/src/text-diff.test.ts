import { describe, expect, it } from 'vitest';
import { compareLines } from './account/line-diff';
import { createTextDiff, TEXT_DIFF_LIMITS } from './account/text-diff';

// Issue 41 finding 2: comparing two versions of a note is bounded by the lines changed and by time,
// and runs off the event loop unless it is small. The page itself is tested in evidence-pages.test.ts.
const lines = (n: number, tag = 'l') => Array.from({ length: n }, (_, i) => `${tag}${i}`);

describe('comparing two versions of a note', () => {
  it('lists the changed lines with the unchanged runs shortened, alike in place and in the worker', async () => {
    const before = lines(40).join('\n');
    const after = lines(40).map((l) => (l === 'l20' ? 'l20 changed' : l)).filter((l) => l !== 'l30').join('\n');
    const expected = [
      { kind: 'same', text: 'l0' }, { kind: 'same', text: 'l1' }, { kind: 'gap', text: '16 unchanged lines' }, { kind: 'same', text: 'l18' }, { kind: 'same', text: 'l19' },
      { kind: 'removed', text: 'l20' }, { kind: 'added', text: 'l20 changed' },
      { kind: 'same', text: 'l21' }, { kind: 'same', text: 'l22' }, { kind: 'gap', text: '5 unchanged lines' }, { kind: 'same', text: 'l28' }, { kind: 'same', text: 'l29' },
      { kind: 'removed', text: 'l30' },
      { kind: 'same', text: 'l31' }, { kind: 'same', text: 'l32' }, { kind: 'gap', text: '5 unchanged lines' }, { kind: 'same', text: 'l38' }, { kind: 'same', text: 'l39' },
    ];
    expect(await createTextDiff()(before, after)).toEqual({ lines: expected });
    const inWorker = createTextDiff({ ...TEXT_DIFF_LIMITS, inline: { maxChars: 0, maxChangedLines: 0 } });
    expect(await inWorker(before, after)).toEqual({ lines: expected });
    expect(await inWorker('', 'one\ntwo\n')).toEqual({ lines: [{ kind: 'added', text: 'one' }, { kind: 'added', text: 'two' }] });
    expect(compareLines('same\r\ntext\n', 'same\ntext', TEXT_DIFF_LIMITS)).toEqual({ lines: [{ kind: 'same', text: 'same' }, { kind: 'same', text: 'text' }] });
  });

  it('more lines changed than the limit: too different, at once', async () => {
    const limits = { ...TEXT_DIFF_LIMITS, maxChangedLines: 100 };
    expect(compareLines(lines(60, 'a').join('\n'), lines(60, 'b').join('\n'), limits)).toEqual({ tooDifferent: 'changed_lines' });
    expect(compareLines(lines(50, 'a').join('\n'), lines(50, 'b').join('\n'), limits)).toMatchObject({ lines: expect.any(Array) });
    // The same lines in another order: the count of lines cannot tell; the diff stops at the limit.
    const shuffled = lines(200).map((l, i) => lines(200)[(i * 37) % 200]!);
    expect(compareLines(lines(200).join('\n'), shuffled.join('\n'), limits)).toEqual({ tooDifferent: 'changed_lines' });
  });

  it('out of time: too different; the time spent waiting for a busy comparer: busy', async () => {
    // The same 20,000 lines in another order, with no limit on the lines changed: seconds of work.
    const text = lines(20_000);
    const shuffled = text.map((_, i) => text[(i * 7_919) % 20_000]!);
    const slow = createTextDiff({ ...TEXT_DIFF_LIMITS, maxChangedLines: 40_000, timeoutMs: 200, concurrent: 1 });
    const [first, second] = await Promise.all([slow(text.join('\n'), shuffled.join('\n')), slow(text.join('\n'), shuffled.join('\n'))]);
    expect(first).toEqual({ tooDifferent: 'time' });
    expect(second).toEqual({ tooDifferent: 'busy' });
  });
});
