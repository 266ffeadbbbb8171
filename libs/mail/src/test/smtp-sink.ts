import net from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as received (headers and body, CRLF line ends, dot-stuffing undone). */
  data: string;
}

export interface SmtpSink {
  port: number;
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A small SMTP server on 127.0.0.1 for tests: no TLS, no authentication, accepts every recipient
 * except those whose address starts with "nobody@" (550), and keeps what it receives in memory.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current: ReceivedMail = { from: '', to: [], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 sink.test ESMTP ready');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(current);
            current = { from: '', to: [], data: '' };
            reply('250 2.0.0 queued');
          } else {
            current.data += `${line.startsWith('..') ? line.slice(1) : line}\r\n`;
          }
          continue;
        }
        const verb = line.split(' ', 1)[0]!.toUpperCase();
        const address = /<([^>]*)>/.exec(line)?.[1] ?? '';
        switch (verb) {
          case 'EHLO':
            socket.write('250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n');
            break;
          case 'HELO':
            reply('250 sink.test');
            break;
          case 'MAIL':
            current = { from: address, to: [], data: '' };
            reply('250 2.1.0 ok');
            break;
          case 'RCPT':
            if (address.startsWith('nobody@')) {
              reply('550 5.1.1 no such mailbox here');
            } else {
              current.to.push(address);
              reply('250 2.1.5 ok');
            }
            break;
          case 'DATA':
            if (!current.to.length) {
              reply('554 5.5.1 no valid recipients');
            } else {
              inData = true;
              reply('354 end with <CRLF>.<CRLF>');
            }
            break;
          case 'RSET':
            current = { from: '', to: [], data: '' };
            reply('250 ok');
            break;
          case 'NOOP':
            reply('250 ok');
            break;
          case 'QUIT':
            reply('221 bye');
            socket.end();
            break;
          default:
            reply('502 5.5.2 command not implemented');
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
