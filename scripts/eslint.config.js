// ESLint's flat config, kept under scripts/ so the top level stays as agreed; `npm run lint` points at it.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { resolve } from 'node:path'

export default tseslint.config(
  { basePath: resolve(import.meta.dirname, '..') },
  { ignores: ['node_modules/', 'src/generated/', 'data/', '.tap/', 'bench-results/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
)
