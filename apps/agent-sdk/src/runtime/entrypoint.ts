import { ReachError } from '../protocol/index.js';
import type { InvokeContext, InvokeHandler } from './invoke-context.js';

/** A method that can serve as an entrypoint. */
export type EntrypointMethod<This> = (this: This, ctx: InvokeContext) => unknown;

/** Instances whose class marked a method with `@runtime.entrypoint`, and which method. */
const marked = new WeakMap<object, string | symbol>();

/**
 * A TypeScript standard (stage 3) method decorator that marks the agent's entrypoint; at construction
 * time it records the instance, so `start(instance)` can find the method without reflection metadata.
 */
export function entrypoint<This extends object, M extends EntrypointMethod<This>>(
  method: M,
  context: ClassMethodDecoratorContext<This, M>,
): M {
  if (context.static || context.private) {
    throw new ReachError(
      'INVALID_CONFIG',
      `@entrypoint must mark a public instance method, not ${String(context.name)}`,
    );
  }
  context.addInitializer(function (this: This) {
    const previous = marked.get(this);
    if (previous !== undefined && previous !== context.name) {
      throw new ReachError(
        'INVALID_CONFIG',
        `only one @entrypoint per agent: ${String(previous)} and ${String(context.name)} are both marked`,
      );
    }
    marked.set(this, context.name);
  });
  return method;
}

/** The handler behind a start target: a function as is, or an object's `@entrypoint` method bound to it. */
export function handlerOf(target: InvokeHandler | object): InvokeHandler | null {
  if (typeof target === 'function') return target as InvokeHandler;
  const name = marked.get(target);
  if (name === undefined) return null;
  const method = (target as Record<string | symbol, unknown>)[name];
  return typeof method === 'function' ? (method.bind(target) as InvokeHandler) : null;
}
