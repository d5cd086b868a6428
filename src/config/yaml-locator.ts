/**
 * Maps a path inside parsed YAML data back to the line and column of its node, so validation
 * errors point at the source. Pure apart from reading the already parsed document.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from 'yaml';

/** 1-based position in the source text. */
export interface SourcePosition {
  line: number;
  col: number;
}

/** Finds nodes of one parsed document by data path. Holds no resources. */
export class YamlLocator {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** Position of the value at `path`, or of its nearest ancestor present in the file. */
  valueAt(path: readonly (string | number)[]): SourcePosition {
    const found = this.walk(path);
    const start = found.node?.range?.[0] ?? found.keyRange?.[0];
    return start === undefined ? { line: 1, col: 1 } : this.position(start);
  }

  /**
   * Position of the key that names the value at `path` (for an unknown key, or for the object
   * missing a field); a sequence item or the root has no key, so its value position is used.
   */
  keyAt(path: readonly (string | number)[]): SourcePosition {
    const found = this.walk(path);
    const start = found.complete ? (found.keyRange?.[0] ?? found.node?.range?.[0]) : undefined;
    if (start !== undefined) return this.position(start);
    return this.valueAt(path);
  }

  /** Every key that repeats within its mapping, with the line of its first use. */
  duplicateKeys(): { path: (string | number)[]; position: SourcePosition; firstLine: number }[] {
    const found: { path: (string | number)[]; position: SourcePosition; firstLine: number }[] = [];
    const visit = (node: Node | undefined, path: (string | number)[]) => {
      if (isMap(node)) {
        const seen = new Map<string, number>();
        for (const pair of node.items as Pair<unknown, unknown>[]) {
          const key = keyOf(pair);
          const start = (pair.key as Node | null)?.range?.[0];
          if (key === undefined || start === undefined) continue;
          const first = seen.get(key);
          if (first !== undefined)
            found.push({ path: [...path, key], position: this.position(start), firstLine: first });
          else seen.set(key, this.position(start).line);
          visit(this.resolve(pair.value as Node | null), [...path, key]);
        }
      } else if (isSeq(node)) {
        node.items.forEach((item, i) => {
          visit(this.resolve(item as Node), [...path, i]);
        });
      }
    };
    visit(this.resolve(this.doc.contents as Node | null), []);
    return found;
  }

  private position(offset: number): SourcePosition {
    const pos = this.lines.linePos(offset);
    return { line: pos.line, col: pos.col };
  }

  /** Follows the path as far as the document goes. */
  private walk(path: readonly (string | number)[]): {
    node: Node | undefined;
    keyRange: readonly number[] | undefined;
    complete: boolean;
  } {
    let node = this.resolve(this.doc.contents as Node | null);
    let keyRange: readonly number[] | undefined;
    for (const segment of path) {
      const next = this.child(node, segment);
      if (!next) return { node, keyRange, complete: false };
      node = next.node;
      keyRange = next.keyRange;
    }
    return { node, keyRange, complete: true };
  }

  private child(
    node: Node | undefined,
    segment: string | number,
  ): { node: Node | undefined; keyRange: readonly number[] | undefined } | undefined {
    if (isMap(node)) {
      const pair = (node.items as Pair<unknown, unknown>[]).find((p) => keyOf(p) === String(segment));
      if (!pair) return undefined;
      const keyNode = pair.key as Node | null;
      return {
        node: this.resolve(pair.value as Node | null) ?? keyNode ?? undefined,
        keyRange: keyNode?.range ?? undefined,
      };
    }
    if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as Node | undefined;
      return item ? { node: this.resolve(item), keyRange: undefined } : undefined;
    }
    return undefined;
  }

  private resolve(node: Node | null | undefined): Node | undefined {
    if (!node) return undefined;
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? node;
    return node;
  }
}

function keyOf(pair: Pair<unknown, unknown>): string | undefined {
  const key = pair.key;
  if (isScalar(key)) return String(key.value);
  if (key === null || key === undefined) return undefined;
  return typeof key === 'object' ? undefined : String(key);
}
