import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: { vscode: fileURLToPath(new URL('./test/vscode.mock.ts', import.meta.url)) },
  },
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts'],
    // test/e2e runs inside a real VS Code (`npm run test:e2e`), not under vitest.
    exclude: [...configDefaults.exclude, 'test/e2e/**'],
  },
});
