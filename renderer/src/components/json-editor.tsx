// CodeMirror 6 on JSON: syntax colours, parse errors linted in place, and the parsed value
// reported up (undefined while the text does not parse).
import { useEffect, useRef } from 'react';
import { EditorView, basicSetup } from 'codemirror';
import { EditorState } from '@codemirror/state';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { linter, lintGutter } from '@codemirror/lint';

export default function JsonEditor(props: {
  value: string;
  label: string;
  readOnly?: boolean;
  onChange?: (text: string) => void;
  minHeight?: number;
  id?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          basicSetup,
          json(),
          linter(jsonParseLinter()),
          lintGutter(),
          EditorView.lineWrapping,
          EditorState.readOnly.of(!!props.readOnly),
          EditorView.editable.of(!props.readOnly),
          EditorView.contentAttributes.of({ 'aria-label': props.label, ...(props.id ? { id: props.id } : {}) }),
          EditorView.theme({ '&': { minHeight: `${props.minHeight ?? 80}px` }, '.cm-scroller': { minHeight: `${props.minHeight ?? 80}px` } }),
          EditorView.updateListener.of((u) => { if (u.docChanged) onChange.current?.(u.state.doc.toString()); }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.readOnly, props.label]);

  // Outside changes (a new record opened) replace the text.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== props.value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: props.value } });
    }
  }, [props.value]);

  return <div ref={host} className="json-editor" />;
}

