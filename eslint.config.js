// Flat config: type-light rules for speed on CI, plus the layering rules of architecture.md §3.
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'net', 'http', 'crypto', 'url']

/** What no service may import; blocks that narrow a folder further repeat it (a rule's options replace). */
const servicePatterns = [
  {
    group: ['electron'],
    message: 'services run without Electron (CLI, browser shell, tests)'
  },
  {
    group: ['**/main/app/**', '../app/**', '../../app/**'],
    message: 'only main/app may use the Electron shell'
  },
  { group: ['**/renderer/**'], message: 'the engine never imports renderer code' }
]

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'node_modules/**',
      '.rocketmq/**',
      'test-results/**',
      'playwright-report/**',
      'bench/results/**',
      'test/golden/**'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly'
      }
    },
    rules: {
      curly: ['error', 'multi-line'],
      eqeqeq: ['error', 'smart'],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'use named exports (house style)' }
      ]
    }
  },
  {
    files: ['**/*.config.{ts,js}', 'eslint.config.js'],
    rules: { 'no-restricted-syntax': 'off' }
  },
  {
    files: ['common/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['electron'], message: 'common/ is shared by every process: no electron' },
            { group: nodeBuiltins, message: 'common/ runs in the renderer too: no Node built-ins' },
            {
              group: ['**/main/**', '**/renderer/**', '**/preload/**'],
              message: 'common/ imports only common/'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['main/services/**/*.ts', 'main/cli/**/*.ts', 'main/serve/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: servicePatterns
        }
      ]
    }
  },
  {
    // The client-worker process boundary: the engine side (workers/) and the child process
    // (room-worker/) meet only in the wire (worker-wire/), which both may import.
    files: ['main/services/workers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...servicePatterns,
            {
              group: ['**/room-worker/**', '../room-worker', '**/room-worker'],
              message:
                'the engine side reaches a room worker only through worker-wire/ (the protocol)'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['main/services/room-worker/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...servicePatterns,
            {
              group: ['**/workers/**', '../workers', '**/workers'],
              message:
                'a room worker runs in its own process: it shares only worker-wire/ with the engine'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        requestAnimationFrame: 'readonly',
        cancelAnimationFrame: 'readonly',
        performance: 'readonly',
        WebSocket: 'readonly',
        Blob: 'readonly',
        sessionStorage: 'readonly',
        localStorage: 'readonly',
        location: 'readonly',
        history: 'readonly',
        HTMLElement: 'readonly',
        HTMLInputElement: 'readonly',
        KeyboardEvent: 'readonly',
        MouseEvent: 'readonly',
        File: 'readonly',
        FileReader: 'readonly',
        getComputedStyle: 'readonly',
        ResizeObserver: 'readonly',
        confirm: 'readonly'
      }
    },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['electron'],
              message: 'the renderer reaches the engine only through lib/bridge'
            },
            {
              group: nodeBuiltins,
              message: 'the renderer runs in a sandboxed page: no Node built-ins'
            },
            { group: ['**/main/**'], message: 'the renderer never imports main/' },
            {
              group: ['**/preload/**', '!**/preload/bridge-types'],
              message: 'only the bridge types may be imported from preload/'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'the sandboxed preload has no Node built-ins' },
            {
              group: ['**/main/**', '**/renderer/**'],
              message: 'the preload imports only common/contract'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['e2e/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/renderer/**', '**/main/services/**'],
              message: 'e2e drives the UI, not internals'
            }
          ]
        }
      ]
    }
  },
  {
    // The harness may record what a spec starts from (a finished run in the app's data folder);
    // specs themselves only drive the UI.
    files: ['e2e/support/recorded-run.ts'],
    rules: { 'no-restricted-imports': 'off' }
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable' }
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' }
  },
  prettier
)
