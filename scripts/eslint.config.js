// ESLint's flat config, kept under scripts/ so the top level stays as agreed; `npm run lint` points at it.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { resolve } from 'node:path'

export default tseslint.config(
  { basePath: resolve(import.meta.dirname, '..') },
  { ignores: ['node_modules/', 'dist/', 'src/generated/', 'data/', '.tap/', 'bench-results/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Dependencies point one way: HTTP (http/, handlers/), metrics and the composition root (app.ts,
    // server.ts, services.ts and its parts in services/) build on the domain, never the reverse, so
    // that a rule can be read, tested and reused without a web server. What services throw and take
    // lives on the domain side: errors/ (ApiError), auth/principal.ts, cursor.ts, log.ts.
    files: [
      'src/{content,auth,jobs,db,images,storage,mail,queue,errors,webhooks,config}/**',
      'src/{config,cursor,log}.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['fastify', 'fastify-*', '@fastify/*'],
              message:
                'Domain code does not know the web framework: take what you need as a parameter or a type of the domain (e.g. Logger of src/log.ts).',
            },
            {
              group: [
                '**/http/**',
                '**/handlers/**',
                '**/metrics/**',
                '**/app.ts',
                '**/server.ts',
                '**/services.ts',
                '**/services/**',
              ],
              message:
                'Domain code does not import the layers built on it: move what both need to the domain side (errors/, auth/principal.ts, cursor.ts).',
            },
          ],
        },
      ],
    },
  },
)
