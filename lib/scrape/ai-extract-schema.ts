import { z } from 'zod';
import { compileSchema } from '../ai/json-schema.js';
import { ServiceError } from '../errors/index.js';
import { storableString } from '../validation/storable.js';

export const AI_PROMPT_MAX_CHARS = 10_000;
export const AI_SCHEMA_MAX_BYTES = 65_536;

/**
 * `ai_extract` (docs/ai-extract.md): instructions for the model and/or a JSON Schema its answer must
 * meet; at least one. Strict: an unknown field is a 400 naming it.
 */
export const AiExtractSchema = z
  .strictObject({
    prompt: storableString().trim().min(1, 'must not be empty').max(AI_PROMPT_MAX_CHARS).optional()
      .describe('Instructions for the model: what to extract.'),
    schema: z.record(storableString(), z.unknown()).optional()
      .describe('JSON Schema (draft 2020-12) the answer must meet; its root describes an object.'),
  })
  .refine((value) => value.prompt !== undefined || value.schema !== undefined, { message: 'needs prompt, schema or both' })
  .describe('Model extraction into data (docs/ai-extract.md): prompt and/or schema; 4 credits on top of the engine.');
export type AiExtract = z.output<typeof AiExtractSchema>;

/**
 * What ajv and the model need of the schema, checked before anything is fetched: it compiles, it is
 * not too large, and its root describes an object (the answer lands in `data`). 400
 * ERR::EXTRACT::INVALID_RULES naming `ai_extract.schema` otherwise.
 */
export function checkAiExtractSchema(aiExtract: AiExtract): void {
  const schema = aiExtract.schema;
  if (schema === undefined) return;
  const refuse = (why: string) => new ServiceError('ERR::EXTRACT::INVALID_RULES', `ai_extract.schema: ${why}`);
  if (Buffer.byteLength(JSON.stringify(schema)) > AI_SCHEMA_MAX_BYTES) throw refuse(`larger than ${AI_SCHEMA_MAX_BYTES} bytes`);
  const type = schema.type;
  const describesObject = type === 'object' || (type === undefined && typeof schema.properties === 'object');
  if (!describesObject) throw refuse('the root must describe an object ("type": "object")');
  const compiled = compileSchema(schema);
  if ('problem' in compiled) throw refuse(`cannot be compiled: ${compiled.problem}`);
}

/** The data an object-root schema without `type` still describes, made explicit for the model. */
export function modelSchema(aiExtract: AiExtract): Record<string, unknown> | null {
  if (aiExtract.schema === undefined) return null;
  return aiExtract.schema.type === undefined ? { type: 'object', ...aiExtract.schema } : aiExtract.schema;
}

/** Where the model's object sits in `data` beside extract or autoparse (docs/ai-extract.md "Beside extract"). */
export const AI_EXTRACT_DATA_KEY = 'ai_extract';
