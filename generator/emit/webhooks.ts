// generated/webhooks.ts — being written.
import type { ApiModel } from '../model/types.js';
import type { GeneratedFile } from './generated-file.js';

export function emitWebhooks(model: ApiModel): GeneratedFile[] {
  void model;
  return [];
}
