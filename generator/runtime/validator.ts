// The shape of a compiled validator (ajv standalone code) and of the errors it reports.

export interface ValidatorError {
  /** JSON Pointer of the failing value within the validated data. */
  instancePath: string;
  schemaPath: string;
  /** The JSON Schema keyword that failed. */
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** The schema object holding the keyword; carries the rule's own code in `x-error-codes`. */
  parentSchema?: Record<string, unknown>;
}

export interface Validator {
  (data: unknown): boolean;
  errors?: ValidatorError[] | null;
}

export interface OperationValidators {
  path?: Validator;
  query?: Validator;
  header?: Validator;
  body?: Validator;
  /** Same schema as `body`, converting text values to the schema's types. */
  form?: Validator;
  responses: Record<number, Validator>;
}
