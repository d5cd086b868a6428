/** Types for the parts of the untyped `ipp-encoder` package that PrintRelay uses (its tables). */
declare module 'ipp-encoder' {
  /** Tag, operation, status and state numbers by upper-case name. */
  export const CONSTANTS: Record<string, number>;
  /** Status code number to its IPP keyword (successful-ok, server-error-busy, ...). */
  export const STATUS_CODES: Record<number, string>;
}
