import { ReachError } from '@agent-reach/sdk/protocol';
import { z } from 'zod';

/** Languages the demo table covers. */
export const TargetLang = z.enum(['fr', 'de', 'es']);

/** The translate operation's input (declared as `[text, target_lang]`). */
export const TranslateInput = z.object({ text: z.string().min(1).max(5000), target_lang: TargetLang });

// A deliberately tiny English word table: this is a demo of the protocol, not a translator.
const TABLE: Record<string, [fr: string, de: string, es: string]> = {
  the: ['le', 'der', 'el'],
  a: ['un', 'ein', 'un'],
  agent: ['agent', 'Agent', 'agente'],
  agents: ['agents', 'Agenten', 'agentes'],
  and: ['et', 'und', 'y'],
  call: ['appeler', 'aufrufen', 'llamar'],
  each: ['chaque', 'jeder', 'cada'],
  find: ['trouver', 'finden', 'encontrar'],
  good: ['bon', 'gut', 'bueno'],
  hello: ['bonjour', 'hallo', 'hola'],
  is: ['est', 'ist', 'es'],
  morning: ['matin', 'Morgen', 'mañana'],
  other: ['autre', 'andere', 'otro'],
  summary: ['résumé', 'Zusammenfassung', 'resumen'],
  text: ['texte', 'Text', 'texto'],
  thank: ['merci', 'danke', 'gracias'],
  world: ['monde', 'Welt', 'mundo'],
  you: ['vous', 'Sie', 'usted'],
};
const COLUMN = { fr: 0, de: 1, es: 2 } as const;

/** Parses an invoke input, or throws VALIDATION_FAILED naming the field. */
export function parseTranslateInput(input: unknown): z.infer<typeof TranslateInput> {
  const parsed = TranslateInput.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ReachError('VALIDATION_FAILED', `input.${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/** Word-by-word lookup; words not in the table stay as they are and are listed in `untranslated`. */
export function translateWords(text: string, lang: z.infer<typeof TargetLang>) {
  const untranslated = new Set<string>();
  const translation = text.replace(/[A-Za-z]+/g, (word) => {
    const entry = TABLE[word.toLowerCase()];
    if (!entry) {
      untranslated.add(word);
      return word;
    }
    const target = entry[COLUMN[lang]];
    return word[0] === word[0]!.toUpperCase() ? target[0]!.toUpperCase() + target.slice(1) : target;
  });
  return { translation, untranslated: [...untranslated] };
}
