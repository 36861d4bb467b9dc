// Builds when needed, then runs the controller: `standalone` (npm start) or `cluster`.
import { execSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const mode = process.argv[2] ?? 'standalone';
const main = 'deploy/launcher/dist/main.js';
if (!existsSync(main) || process.env.EDGE_SKIP_BUILD !== '1') {
  execSync('npm run build --silent', { stdio: 'inherit' });
}
const child = spawn(process.execPath, [main, mode], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code) => process.exit(code ?? 1));
