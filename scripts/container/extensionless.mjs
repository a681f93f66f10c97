// Loaded first (`node --import`) by the compiled image: our TypeScript imports its own modules
// without extensions (`'./app'`, resolved by tsx and bundlers), which tsc emits unchanged and
// Node's ES module loader refuses. This resolves a relative specifier that has no file to
// `<specifier>.js`, then `<specifier>/index.js`. Nothing else is changed.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      const unresolved = error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'ERR_UNSUPPORTED_DIR_IMPORT';
      if (!unresolved || !(specifier.startsWith('./') || specifier.startsWith('../'))) throw error;
      for (const suffix of ['.js', '/index.js']) {
        try {
          return nextResolve(specifier + suffix, context);
        } catch {
          // try the next form
        }
      }
      throw error;
    }
  },
});
