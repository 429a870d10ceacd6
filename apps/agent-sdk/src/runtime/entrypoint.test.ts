import { describe, expect, it } from 'vitest';
import { isReachError } from '../protocol/index.js';
import { entrypoint, handlerOf } from './entrypoint.js';
import type { InvokeContext } from './invoke-context.js';

// vitest (vite 8 / oxc) cannot compile decorator syntax, so this applies the decorator the way the
// TypeScript 5 / esbuild output does: call it with a context, run its initializers in the constructor.
// The samples (run under tsx in agent-process.test.ts) use the real `@runtime.entrypoint` syntax.
type Method = (this: object, ctx: InvokeContext) => unknown;

function decorate(name: string, method: Method, extra: Partial<ClassMethodDecoratorContext> = {}) {
  const initializers: ((this: object) => void)[] = [];
  const context = {
    kind: 'method',
    name,
    static: false,
    private: false,
    access: { has: () => true, get: () => method },
    metadata: {},
    addInitializer: (init: (this: object) => void) => initializers.push(init),
    ...extra,
  } as unknown as ClassMethodDecoratorContext<object, Method>;
  const returned = entrypoint(method, context);
  return {
    returned,
    construct: (instance: object) => {
      for (const init of initializers) init.call(instance);
    },
  };
}

describe('@entrypoint', () => {
  it('finds the marked method of an instance and binds it', async () => {
    const summarizer = {
      prefix: 'sum:',
      handle(this: { prefix: string }, ctx: InvokeContext) {
        return this.prefix + String(ctx.input);
      },
    };
    const { returned, construct } = decorate('handle', summarizer.handle as Method);
    expect(returned).toBe(summarizer.handle);
    expect(handlerOf(summarizer)).toBeNull();
    construct(summarizer);
    const handler = handlerOf(summarizer)!;
    expect(await handler({ input: 'text' } as InvokeContext)).toBe('sum:text');
  });

  it('passes a function through and refuses two entrypoints or a static one', () => {
    const fn = () => 1;
    expect(handlerOf(fn)).toBe(fn);
    const instance = { a: () => 1, b: () => 2 };
    decorate('a', instance.a).construct(instance);
    const error = (() => {
      try {
        decorate('b', instance.b).construct(instance);
      } catch (e) {
        return e;
      }
    })();
    expect(isReachError(error) && error.code).toBe('INVALID_CONFIG');
    expect(() => decorate('c', () => 3, { static: true })).toThrow(/public instance method/);
  });
});
