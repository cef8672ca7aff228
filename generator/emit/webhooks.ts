// generated/client/src/webhooks.ts: a payload type per webhook, the webhooks' metadata as data, the merchant's
// receiver (`createWebhookReceiver`) and the service's sender helper (`buildWebhookDelivery`). The logic
// lives in the generic runtime (generator/runtime/webhook-*.ts); this file binds it to the contract.
import { VariableDeclarationKind, type CodeBlockWriter } from 'ts-morph';
import type { ApiModel, Json, WebhookModel } from '../model/types.js';
import { isObject } from '../model/read-model.js';
import { createEmitProject, toGeneratedFile, type GeneratedFile, runtimeImport } from './generated-file.js';

const SOURCE = 'generator/emit/webhooks.ts';

/** The payload type's name: the operationId in PascalCase plus `Callback` (`ewalletPayment` -> `EwalletPaymentCallback`). */
export function payloadTypeName(operationId: string): string {
  return `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}Callback`;
}

/** The payload type, read from openapi-typescript's `webhooks` so it is the very type the contract gives. */
export function payloadType(webhook: WebhookModel): string {
  return `webhooks['${webhook.name}']['post']['requestBody']['content']['application/json']`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Writes a JSON value as a TypeScript literal (objects one property a line, so diffs stay small). */
export function writeLiteral(writer: CodeBlockWriter, value: Json): void {
  if (typeof value === 'string') writer.quote(value);
  else if (Array.isArray(value)) {
    writer.write('[');
    value.forEach((item, index) => {
      if (index > 0) writer.write(', ');
      writeLiteral(writer, item);
    });
    writer.write(']');
  } else if (isObject(value)) {
    writer.write('{').indent(() => {
      for (const [key, child] of Object.entries(value)) {
        if (IDENTIFIER.test(key)) writer.write(key);
        else writer.quote(key);
        writer.write(': ');
        writeLiteral(writer, child);
        writer.write(',').newLine();
      }
    });
    writer.write('}');
  } else writer.write(String(value));
}

/** What the emitted webhooks.ts says about one webhook (`WebhookMetadata` in the runtime). */
export function webhookMetadata(webhook: WebhookModel): Json {
  return {
    name: webhook.name,
    operationId: webhook.operationId,
    summary: webhook.summary,
    tokenHeader: webhook.tokenHeader,
    delivery: webhook.delivery,
  };
}

export function emitWebhooks(model: ApiModel): GeneratedFile[] {
  const project = createEmitProject();
  const file = project.createSourceFile('webhooks.ts');
  file.addImportDeclaration({ moduleSpecifier: './types.js', isTypeOnly: true, namedImports: ['webhooks'] });
  file.addImportDeclaration({ moduleSpecifier: './validators/webhooks.js', namedImports: ['webhookValidators'] });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('webhook-definition'),
    isTypeOnly: true,
    namedImports: ['WebhookDefinition', 'WebhookMetadata'],
  });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('webhook-receiver'),
    namedImports: [
      'createReceiver',
      { name: 'WebhookHandlers', alias: 'Handlers', isTypeOnly: true },
      { name: 'WebhookReceiverOptions', alias: 'ReceiverOptions', isTypeOnly: true },
    ],
  });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('webhook-sender'),
    namedImports: [
      'buildDelivery',
      { name: 'WebhookDelivery', alias: 'Delivery', isTypeOnly: true },
      { name: 'WebhookDeliveryOptions', isTypeOnly: true },
    ],
  });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('node-handler'),
    namedImports: ['toNodeHandler', { name: 'NodeRequest', isTypeOnly: true }],
  });
  file.addImportDeclaration({ moduleSpecifier: 'node:http', isTypeOnly: true, namedImports: ['ServerResponse'] });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('webhook-sender'),
    namedExports: ['toRequest', 'WebhookPayloadError'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('node-handler'),
    namedExports: ['fastifyRequest', 'toNodeHandler'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('webhook-sender'),
    isTypeOnly: true,
    namedExports: ['WebhookDeliveryOptions'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('webhook-definition'),
    isTypeOnly: true,
    namedExports: ['DeliveryRules', 'WebhookMetadata'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('validation-errors'),
    isTypeOnly: true,
    namedExports: ['ValidationIssue'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('webhook-receiver'),
    isTypeOnly: true,
    namedExports: ['WebhookContext', 'WebhookReceiverError'],
  });

  for (const webhook of model.webhooks) {
    file.addTypeAlias({
      isExported: true,
      name: payloadTypeName(webhook.operationId),
      type: payloadType(webhook),
      docs: [`\`${webhook.name}\`: ${webhook.summary}.`],
    });
  }
  file.addInterface({
    isExported: true,
    name: 'WebhookEvents',
    docs: ["Every webhook's payload, by operationId."],
    properties: model.webhooks.map((webhook) => ({
      name: webhook.operationId,
      type: payloadTypeName(webhook.operationId),
    })),
  });
  file.addTypeAlias({
    isExported: true,
    name: 'WebhookKind',
    type: 'keyof WebhookEvents',
    docs: ["A webhook's operationId."],
  });

  const perWebhook = (write: (writer: CodeBlockWriter, webhook: WebhookModel) => void) => (writer: CodeBlockWriter) => {
    writer.write('{').indent(() => {
      for (const webhook of model.webhooks) {
        writer.write(`${webhook.operationId}: `);
        write(writer, webhook);
        writer.write(',').newLine();
      }
    });
    writer.write('}');
  };
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Every webhook as the contract describes it, delivery rules (`x-delivery`) included, by operationId.'],
    declarations: [
      {
        name: 'webhookMetadata',
        initializer: (writer) => {
          perWebhook((w, webhook) => writeLiteral(w, webhookMetadata(webhook)))(writer);
          writer.write(' as const satisfies Record<WebhookKind, WebhookMetadata>');
        },
      },
    ],
  });
  file.addVariableStatement({
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Metadata and compiled body validator of every webhook: what the receiver and the sender work from.'],
    declarations: [
      {
        name: 'definitions',
        initializer: (writer) => {
          perWebhook((w, { operationId }) =>
            w.write(`{ ...webhookMetadata.${operationId}, validate: webhookValidators.${operationId} }`),
          )(writer);
          writer.write(' satisfies Record<WebhookKind, WebhookDefinition>');
        },
      },
    ],
  });

  file.addTypeAlias({
    isExported: true,
    name: 'WebhookHandlers',
    type: 'Handlers<WebhookEvents>',
    docs: ["The merchant's handlers: any subset of the webhooks, by operationId."],
  });
  file.addTypeAlias({
    isExported: true,
    name: 'WebhookReceiverOptions',
    type: 'ReceiverOptions<WebhookKind>',
    docs: ['The callback token, and optionally the one webhook this endpoint receives.'],
  });
  file.addTypeAlias({
    isExported: true,
    name: 'WebhookDelivery',
    type: "Delivery<(typeof webhookMetadata)[WebhookKind]['tokenHeader']>",
    docs: ['One delivery of a webhook: the request the service sends, as data.'],
  });
  file.addFunction({
    isExported: true,
    name: 'createWebhookReceiver',
    docs: [
      [
        "The merchant's endpoint for the webhooks that have a handler, as a fetch-standard handler. Checks the",
        'callback token in constant time (401), takes POST only (405), parses the JSON body (400), tells which',
        "webhook it is (`options.kind`, else the body's `event`, else the only webhook handled, else the one",
        'handled webhook whose schema fits; 400 when none or several), validates it (400 with `errors`), awaits',
        'the handler and acknowledges with 200; a throwing handler answers 500 so the service delivers again.',
      ].join('\n'),
    ],
    parameters: [
      { name: 'handlers', type: 'WebhookHandlers' },
      { name: 'options', type: 'WebhookReceiverOptions' },
    ],
    returnType: '(request: Request) => Promise<Response>',
    statements: 'return createReceiver<WebhookEvents>(definitions, handlers, options);',
  });
  file.addFunction({
    isExported: true,
    name: 'createNodeWebhookReceiver',
    docs: [
      [
        '`createWebhookReceiver` as a Node request listener, with the same checks and answers: mounted in one line',
        "on node:http (`http.createServer(receiver)`), Express (`app.post('/callbacks', receiver)`, with or without",
        "`express.json()`) or Fastify (`app.post('/callbacks', (req, reply) => receiver(fastifyRequest(req), reply.hijack().raw))`).",
      ].join('\n'),
    ],
    parameters: [
      { name: 'handlers', type: 'WebhookHandlers' },
      { name: 'options', type: 'WebhookReceiverOptions' },
    ],
    returnType: '(request: NodeRequest, response: ServerResponse) => Promise<void>',
    statements: 'return toNodeHandler(createWebhookReceiver(handlers, options));',
  });
  file.addFunction({
    isExported: true,
    name: 'buildWebhookDelivery',
    docs: [
      "The delivery of one webhook to `options.url`. Throws `WebhookPayloadError` when the payload breaks the webhook's schema.",
    ],
    typeParameters: [{ name: 'K', constraint: 'WebhookKind' }],
    parameters: [
      { name: 'operationId', type: 'K' },
      { name: 'payload', type: 'WebhookEvents[K]' },
      { name: 'options', type: 'WebhookDeliveryOptions' },
    ],
    returnType: 'WebhookDelivery',
    statements: 'return buildDelivery(definitions[operationId], payload, options);',
  });
  return [toGeneratedFile('webhooks.ts', SOURCE, file)];
}
