// JSON text helpers shared by the forms.
/** Parses JSON text; undefined plus a message when it does not. */
export function tryParse(text: string): { value?: unknown; error?: string } {
  if (!text.trim()) return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
