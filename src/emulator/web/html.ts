/**
 * Safe HTML building for the emulator's server-rendered pages: a tagged template that escapes
 * every interpolated value unless it is already SafeHtml. Pure; nothing to clean up.
 */

/** A fragment of HTML that is known to be safe (built by `html` or `raw`). */
export class SafeHtml {
  constructor(readonly value: string) {}
  /** The HTML text. */
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for use in HTML content and in double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (ch) => ESCAPES[ch] ?? ch);
}

/** A value the template accepts: text (escaped), numbers, SafeHtml, lists of those, or nothing. */
export type HtmlValue = string | number | SafeHtml | undefined | null | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${text}</p>\`` escapes `text`; nested `html` fragments pass as is. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Marks trusted constant markup (never user data) as SafeHtml. */
export function raw(trusted: string): SafeHtml {
  return new SafeHtml(trusted);
}

/** Hidden inputs carrying request parameters through a form post, names and values escaped. */
export function hiddenFields(fields: Readonly<Record<string, string | undefined>>): SafeHtml {
  const inputs = Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`${inputs}`;
}
