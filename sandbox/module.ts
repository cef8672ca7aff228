// The shape of a sandbox module: everything a product brings (its collections, its service and control
// handlers, what it auto-resolves later and its dashboard views) in one object, so that adding a product
// is writing its module and naming it once in the list of products (modules.ts). The app composes the list;
// nothing else names a product.
import type { Handlers } from '@payments-contract/server';
import { operationTable } from '@payments-contract/server';
import type { Handlers as ControlHandlerSet } from '@payments-contract/server/sandbox/server';
import { operationTable as controlOperationTable } from '@payments-contract/server/sandbox/server';
import type { AutoResolveHandlers, Caller, SandboxContext } from './context.js';
import type { ResourceKind, ResourceKindName } from './platform/resources.js';
import type { CollectionDefinition } from './store/store.js';

export type ServiceHandlers = Handlers<Caller>;
export type ControlHandlers = ControlHandlerSet<Caller>;

/** The dashboard views (the control API's resource lists) a module shows, by resource kind. */
export type ResourceViews = Readonly<Partial<Record<ResourceKindName, ResourceKind>>>;

type Empty = Record<never, never>;

/**
 * One product. `Service`, `Control` and `Views` keep the exact operations and kinds it implements, so the list
 * of products is checked at compile time for what it leaves out or implements twice (see `products`).
 */
export interface SandboxModule<
  Service extends object = object,
  Control extends object = object,
  Views = ResourceViews,
> {
  /** Names the module in start-up errors (a collection or kind declared twice). */
  readonly name: string;
  /** The store collections its records live in: the store knows them all before the first request. */
  readonly collections: readonly CollectionDefinition[];
  /** Its operations of the service contract (each typed by the generated handler types). */
  readonly service: (ctx: SandboxContext) => Service;
  /** Its operations of the control API (the simulations of what only the bank or the customer does). */
  readonly control: (ctx: SandboxContext) => Control;
  /** What runs when an object it scheduled through `ctx.autoResolve` is due, by the kind it scheduled. */
  readonly autoResolve: (ctx: SandboxContext) => AutoResolveHandlers;
  /** How the control API's resource lists show its records. */
  readonly views: Views;
}

/** A module of any operations and kinds (what the app composes). */
export type AnySandboxModule = SandboxModule<object, object, ResourceViews>;

/** A module from what it has; the parts it leaves out are empty. */
export function sandboxModule<
  Service extends Partial<ServiceHandlers> = Empty,
  Control extends Partial<ControlHandlers> = Empty,
  const Views extends ResourceViews = Empty,
>(parts: {
  name: string;
  collections?: readonly CollectionDefinition[];
  service?: (ctx: SandboxContext) => Service;
  control?: (ctx: SandboxContext) => Control;
  autoResolve?: (ctx: SandboxContext) => AutoResolveHandlers;
  views?: Views;
}): SandboxModule<Service, Control, Views> {
  // Without a part, its type argument is its default, Empty; every part's type has only optional members.
  return {
    name: parts.name,
    collections: parts.collections ?? [],
    service: parts.service ?? (() => ({}) as Service),
    control: parts.control ?? (() => ({}) as Control),
    autoResolve: parts.autoResolve ?? (() => ({})),
    views: parts.views ?? ({} as Views),
  };
}

/** The operations two handler sets both implement (never, when each is implemented once). */
type Overlap<Parts extends readonly object[], Seen extends PropertyKey = never> = Parts extends readonly [
  infer Head extends object,
  ...infer Rest extends readonly object[],
]
  ? Extract<keyof Head, Seen> | Overlap<Rest, Seen | keyof Head>
  : never;
type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/**
 * The handler sets of the modules as one. An operation two modules both implement is a compile error (the
 * argument type turns into a message naming it), and, for sets built at run time, an error at start-up:
 * a spread alone would let the later one win in silence.
 */
export function combineHandlers<const Parts extends readonly object[]>(
  ...parts: Parts & ([Overlap<Parts>] extends [never] ? unknown : { implementedTwice: Overlap<Parts> })
): Intersection<Parts[number]> {
  const combined: Record<string, unknown> = {};
  for (const part of parts as readonly object[]) {
    for (const [operationId, handler] of Object.entries(part)) {
      if (operationId in combined) throw new Error(`${operationId} is implemented twice`);
      combined[operationId] = handler;
    }
  }
  return combined as Intersection<Parts[number]>;
}

type ServiceOf<M> = M extends SandboxModule<infer Service, object, unknown> ? Service : never;
type ControlOf<M> = M extends SandboxModule<object, infer Control, unknown> ? Control : never;
type ViewsOf<M> = M extends SandboxModule<object, object, infer Views> ? Views : never;
type KeysOf<U> = U extends unknown ? keyof U : never;
type Each<M extends readonly unknown[], Of extends 'service' | 'control' | 'views'> = {
  [I in keyof M]: Of extends 'service' ? ServiceOf<M[I]> : Of extends 'control' ? ControlOf<M[I]> : ViewsOf<M[I]>;
};

/** What a list of products gets wrong, each named: operations and kinds nobody implements, or two modules do. */
type Problems<M extends readonly AnySandboxModule[], Core extends PropertyKey> = {
  serviceOperationsNotImplemented: Exclude<keyof ServiceHandlers, KeysOf<ServiceOf<M[number]>>>;
  controlOperationsNotImplemented: Exclude<keyof ControlHandlers, Core | KeysOf<ControlOf<M[number]>>>;
  resourceKindsWithoutView: Exclude<ResourceKindName, KeysOf<ViewsOf<M[number]>>>;
  serviceOperationsImplementedTwice: Overlap<Each<M, 'service'>>;
  controlOperationsImplementedTwice: Overlap<[{ [K in Core]: true }, ...Each<M, 'control'>]>;
  resourceKindsShownTwice: Overlap<Each<M, 'views'>>;
};
type Named<P> = { [K in keyof P as [P[K]] extends [never] ? never : K]: P[K] };

/**
 * The list of products, checked at compile time: every operation of the service contract, every control
 * operation the core (`Core`) does not implement and every resource kind has exactly one module. A list that
 * misses one does not compile, and the error names it (`serviceOperationsNotImplemented: "getBalance"`).
 */
export function products<Core extends PropertyKey>() {
  return <const M extends readonly AnySandboxModule[]>(...modules: M & Named<Problems<M, Core>>): M => modules;
}

/** The modules as one: what the app opens the store with, routes to and runs later. */
export interface ComposedModules {
  collections: CollectionDefinition[];
  service(ctx: SandboxContext): Partial<ServiceHandlers>;
  control(ctx: SandboxContext): Partial<ControlHandlers>;
  autoResolve(ctx: SandboxContext): AutoResolveHandlers;
  views: ResourceViews;
}

/** Throws when two modules declare one name: later would win in silence. */
function once<Item>(what: string, items: Iterable<readonly [string, Item]>): Record<string, Item> {
  const found: Record<string, Item> = {};
  for (const [name, item] of items) {
    if (name in found) throw new Error(`${what} ${name} is declared twice`);
    found[name] = item;
  }
  return found;
}

/**
 * The modules' parts put together, each at most once (a module name, a collection, an operation, an
 * auto-resolve kind or a resource kind declared twice is an error at start-up). The list the sandbox ships is complete by
 * `products`; a list a test composes may leave some out.
 */
export function composeModules(modules: readonly AnySandboxModule[]): ComposedModules {
  once(
    'module',
    modules.map((module) => [module.name, module] as const),
  );
  const collections = modules.flatMap((module) => module.collections);
  once(
    'collection',
    collections.map((collection) => [collection.name, collection] as const),
  );
  const views = once(
    'resource kind view',
    modules.flatMap((module) => Object.entries(module.views)),
  );
  return {
    collections,
    service: (ctx) => combineHandlers(...modules.map((module) => module.service(ctx))),
    control: (ctx) => combineHandlers(...modules.map((module) => module.control(ctx))),
    autoResolve: (ctx) =>
      once(
        'auto-resolve kind',
        modules.flatMap((module) => Object.entries(module.autoResolve(ctx))),
      ),
    views,
  };
}

/** A handler of an operation no module implements: the router reports it and answers its generic 500. */
const unimplemented = (operationId: string) => (): never => {
  throw new Error(`no module implements ${operationId}`);
};

/** The parts as one handler set of every operation of `table` (each implemented at most once). */
function complete<Set>(table: object, parts: readonly object[]): Set {
  const given = new Map<string, unknown>(Object.entries(combineHandlers(...parts)));
  const all: Record<string, unknown> = {};
  for (const operationId of Object.keys(table)) all[operationId] = given.get(operationId) ?? unimplemented(operationId);
  // Every operation of the generated table has a function now, the handler set's only requirement at run time.
  return all as Set;
}

/** The service contract's handler set from the parts; an operation none implements is answered by `unimplemented`. */
export const completeService = (...parts: readonly object[]): ServiceHandlers =>
  complete<ServiceHandlers>(operationTable, parts);

/** The control API's handler set from the parts, likewise. */
export const completeControl = (...parts: readonly object[]): ControlHandlers =>
  complete<ControlHandlers>(controlOperationTable, parts);
