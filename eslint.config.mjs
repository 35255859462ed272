import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/generated/**', '**/node_modules/**', '**/coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read the environment only in an app env module (src/env.ts).',
        },
      ],
    },
  },
  {
    files: ['**/env.ts', '**/*.test.ts', '**/test/**', '**/bench/**', '**/tools/**', '**/scripts/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
