import { type Declaration, RegisterRequest } from '@agent-reach/sdk/protocol';
import { parseOrThrow } from '../http/validation.js';

/** Everything of a registration but its declaration, checked as RegisterRequest checks it. */
const RegisterRequestRest = RegisterRequest.omit({ declaration: true });

/** Distinct declarations kept; past this the oldest goes (a fleet registers a few per agent). */
const MAX_DECLARATIONS = 512;
/** Longer declaration texts are parsed every time (the cache stays small whatever is sent). */
const MAX_CACHED_TEXT = 8192;

/**
 * Parses `POST /v1/agents` bodies, each declaration text once: a fleet's replicas send the same
 * declaration again and again, and its zod parse was the largest part of validating a registration.
 * A declaration whose JSON text (re-serialised from the parsed body, so spacing does not matter) was
 * parsed before reuses that result — the same input gives the same output, defaults included — and
 * the rest of the body is still checked in full; anything new or invalid goes through the whole
 * schema, so errors and their field paths are RegisterRequest's own. Sharing the declaration object
 * is safe because nothing changes a declaration after parsing (the instance cache already shares one
 * per version).
 */
export class RegisterRequestParser {
  readonly #declarations = new Map<string, Declaration>();

  parse(body: unknown): RegisterRequest {
    const raw = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
    const rawDeclaration = raw?.declaration;
    if (typeof rawDeclaration !== 'object' || rawDeclaration === null)
      return parseOrThrow(RegisterRequest, body, 'registration');
    const text = JSON.stringify(rawDeclaration);
    const known = this.#declarations.get(text);
    if (known === undefined) {
      const request = parseOrThrow(RegisterRequest, body, 'registration');
      if (text.length <= MAX_CACHED_TEXT) this.#remember(text, request.declaration);
      return request;
    }
    const { declaration: _, ...rest } = raw!;
    return { declaration: known, ...parseOrThrow(RegisterRequestRest, rest, 'registration') };
  }

  #remember(text: string, declaration: Declaration): void {
    if (this.#declarations.size >= MAX_DECLARATIONS)
      this.#declarations.delete(this.#declarations.keys().next().value!);
    this.#declarations.set(text, declaration);
  }
}
