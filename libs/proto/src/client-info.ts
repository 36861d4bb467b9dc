/**
 * `envInfo` and `sdkInfo` as the API answers them: the fields OpenZiti defines that hold a string,
 * from an EnvInfo/SdkInfo message or a stored JSON object. A field the client did not report is
 * left out rather than answered empty.
 */
const ENV_INFO = ['arch', 'domain', 'hostname', 'os', 'osRelease', 'osVersion'] as const;
const SDK_INFO = ['appId', 'appVersion', 'branch', 'revision', 'type', 'version'] as const;

export type EnvInfoFields = Partial<Record<(typeof ENV_INFO)[number], string>>;
export type SdkInfoFields = Partial<Record<(typeof SDK_INFO)[number], string>>;

function pick<K extends string>(value: unknown, fields: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  if (value === null || typeof value !== 'object') return out;
  for (const f of fields) {
    const v = (value as Record<string, unknown>)[f];
    if (typeof v === 'string') out[f] = v;
  }
  return out;
}

/** The `envInfo` fields of a message or stored object. */
export const envInfoOf = (value: unknown): EnvInfoFields => pick(value, ENV_INFO);

/** The `sdkInfo` fields of a message or stored object. */
export const sdkInfoOf = (value: unknown): SdkInfoFields => pick(value, SDK_INFO);
