// A value built when first used rather than when its module loads: the schemas (schemas.ts) cost a one-job
// `concertina simulate` a fifth of its start-up to build, and a run uses few of them (issue 17).

/**
 * Stands for `build()`'s object, built on the first access to any of its properties (then kept): reading, `in`,
 * listing keys, `instanceof`. Typed as the object, so its users see no difference.
 */
// Decision: a Proxy rather than a getter function per schema, so that schemas.ts keeps its declarations as they read
// and no caller changes; an access costs one trap, negligible beside a parse.
export function builtOnFirstUse<T extends object>(build: () => T): T {
  let built: T | undefined;
  const target = () => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // A proxy may not report a property non-configurable that its (empty) target lacks.
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}
