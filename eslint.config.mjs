import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/generated/**', '.data/**', '.nx/**', '**/dist/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts', '**/*.mjs'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          enforceBuildableLibDependency: false,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:app'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:app', 'type:tool'] },
          ],
        },
      ],
    },
  },
  {
    // The console runs no authorization server: it reads and revokes grants through @loupe/oauth/grants.
    files: ['apps/web/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'oidc-provider', message: 'The web app does not run the authorization server.' },
          { name: '@loupe/oauth', message: 'It loads oidc-provider: import @loupe/oauth/grants.' },
        ],
      }],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', '**/testing/**/*.ts', 'e2e/**/*.ts', 'tools/bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
