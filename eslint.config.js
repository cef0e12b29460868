import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** A string that starts as an SQL statement does (upper-case SQL, as this code writes it). */
const RAW_STATEMENT =
  '/^\\s*(SELECT\\s|INSERT\\s+INTO\\s|UPDATE\\s+\\S+\\s+SET\\s|DELETE\\s+FROM\\s|WITH\\s|LOCK\\s+TABLE\\s)/';
const RAW_STATEMENT_MESSAGE =
  'Build statements with the typed `sql` tag (src/common/database/statement.ts) in a repository, not as strings.';
/** Text that is not a statement: `fragment(…)`, the statement layer's own constant SQL pieces. */
const NOT_FRAGMENT = ':not(CallExpression[callee.name="fragment"] > .arguments)';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'eslint.config.js'],
  },
  // a consumer's own project (CommonJS jest, its own install), run by test/package.e2e-spec.ts
  {
    ignores: [
      'examples/platform-jest-suite/**',
      'examples/generated-client/**',
      'test/fixtures/type-consumers/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // only the HTTP platform folder knows which server runs under Nest (express.ts, fastify.ts)
    files: ['**/*.ts'],
    ignores: ['src/common/http/platform/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(express|fastify|@fastify/.*|@nestjs/platform-(express|fastify))(/.*)?$',
              message: 'Only src/common/http/platform/ may import the HTTP server (HttpPlatform).',
            },
          ],
        },
      ],
    },
  },
  {
    // One data-access idiom: statements are built with the typed `sql` tag (statement.ts), whose
    // values are bound parameters and which compose; never as plain strings with `$n`. The
    // statement layer itself (src/common/database) sends its few fixed statements as text.
    files: ['src/**/*.ts', 'src/**/*.cts'],
    ignores: ['src/common/database/**', '**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `Literal${NOT_FRAGMENT}[value=${RAW_STATEMENT}]`,
          message: RAW_STATEMENT_MESSAGE,
        },
        {
          selector: `TemplateLiteral:not(TaggedTemplateExpression > .quasi)${NOT_FRAGMENT} > TemplateElement:first-child[value.raw=${RAW_STATEMENT}]`,
          message: RAW_STATEMENT_MESSAGE,
        },
      ],
    },
  },
  {
    // Files <= 300 lines (issue 38): a file that grows past it is split by responsibility, not
    // trimmed of comments or blank lines. Unit specs are exempt.
    files: ['src/**/*.ts', 'src/**/*.cts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        Buffer: 'readonly',
        performance: 'readonly',
        module: 'writable',
        require: 'readonly',
      },
    },
  },
);
