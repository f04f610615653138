// The JSON editor, loaded on first use: CodeMirror stays out of the first load of a page.
import { lazy, Suspense, type ComponentProps } from 'react';

const Editor = lazy(() => import('./json-editor'));

export function JsonEditor(props: ComponentProps<typeof Editor>) {
  return (
    <Suspense fallback={<textarea aria-label={props.label} readOnly value={props.value} style={{ minHeight: props.minHeight ?? 80 }} />}>
      <Editor {...props} />
    </Suspense>
  );
}
