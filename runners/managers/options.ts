// What the batch-system adapters' option schemas are made of, and a JSON description of such a schema's fields
// (name, title, kind, default, enum, description) that the console builds its form from (served by the API), so
// that an option added to an adapter's schema appears in Settings → Clusters without a copy elsewhere.
import { z } from 'zod';

/** One word given to a batch command (a partition, a queue, one submit option). */
export const batchWord = z.string().min(1).max(200);

/** More submit options, each one word (quoted on the command line). */
export const extraArgsOption = (command: string, example: string) =>
  z
    .array(batchWord)
    .max(50)
    .optional()
    .meta({
      title: 'more submit options',
      description: `more ${command} options, one word per line (e.g. ${example})`,
    });

/** How the form shows a field: one line of text, a list (one item per line), one of some values, or a number. */
export const OPTION_KINDS = ['text', 'list', 'enum', 'number'] as const;
export type OptionKind = (typeof OPTION_KINDS)[number];

export interface OptionField {
  readonly name: string;
  readonly title: string;
  readonly kind: OptionKind;
  readonly description: string;
  readonly required: boolean;
  readonly enum?: string[];
  readonly default?: string | number;
}

/** The fields of an adapter's options schema, in its order, as the console's form shows them. */
export function describeOptions(schema: z.ZodObject): OptionField[] {
  return Object.entries(schema.shape).map(([name, field]) => describeField(name, field as z.ZodType));
}

function describeField(name: string, field: z.ZodType): OptionField {
  const meta = z.globalRegistry.get(field) ?? {};
  let inner = field;
  let required = true;
  let defaultValue: unknown;
  for (;;) {
    const def = inner._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
    if (def.type === 'optional') required = false;
    else if (def.type === 'default') {
      required = false;
      defaultValue = def.defaultValue;
    } else break;
    inner = def.innerType!;
  }
  const def = inner._zod.def as { type: string; entries?: Record<string, string> };
  const kind: OptionKind | undefined =
    def.type === 'string'
      ? 'text'
      : def.type === 'array'
        ? 'list'
        : def.type === 'enum'
          ? 'enum'
          : def.type === 'number'
            ? 'number'
            : undefined;
  // A kind the form cannot show is the adapter author's mistake: said at once, naming the field.
  if (!kind)
    throw new Error(
      `${name}: an option of type ${def.type} cannot be shown in a form (text, list, enum or number only)`,
    );
  return {
    name,
    title: typeof meta.title === 'string' ? meta.title : name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase(),
    kind,
    description: meta.description ?? field.description ?? '',
    required,
    ...(kind === 'enum' && { enum: Object.values(def.entries ?? {}) }),
    ...((typeof defaultValue === 'string' || typeof defaultValue === 'number') && { default: defaultValue }),
  };
}
