// The transcript's entries: messages, folded reasoning, tool calls (diff, terminal, locations), permission requests.
import { useEffect, useState } from 'preact/hooks';
import type { PermissionEntry, TextEntry, ToolCallEntry, ToolContent } from '../state/conversation.js';
import { diffLines, sideBySide } from './line-diff.js';
import { Markdown } from './markdown.js';

/** What a message shows at first, and how much more each "Show more" adds: the page stays responsive whatever the agent sends. */
export const SHOWN_CHARACTERS = 100_000;

function formatSize(characters: number): string {
  return characters >= 1_000_000
    ? `${(characters / 1_000_000).toFixed(1)} M`
    : `${Math.ceil(characters / 1000)} k`;
}

/** A link that saves the whole text as a file (a Blob URL, revoked when the entry leaves the page). */
function SaveText({ text }: { text: string }) {
  const [href, setHref] = useState<string | undefined>(undefined);
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [text]);
  return href === undefined ? null : (
    <a href={href} download="message.txt">
      Save all as a file
    </a>
  );
}

/** Long text, cut at {@link SHOWN_CHARACTERS}, shown further a step at a time, or saved whole. */
function LongText({ text, markdown }: { text: string; markdown: boolean }) {
  const [shown, setShown] = useState(SHOWN_CHARACTERS);
  if (text.length <= shown) {
    return markdown ? <Markdown source={text} /> : <pre class="plain">{text}</pre>;
  }
  return (
    <>
      <pre class="plain">{text.slice(0, shown)}</pre>
      <p class="cut">
        Showing {formatSize(shown)} of {formatSize(text.length)} characters.{' '}
        <button type="button" class="small" onClick={() => setShown(shown + SHOWN_CHARACTERS)}>
          Show more
        </button>{' '}
        <SaveText text={text} />
      </p>
    </>
  );
}

export function TextView({ entry }: { entry: TextEntry }) {
  if (entry.kind === 'thought') {
    return (
      <details class="thought">
        <summary>Reasoning</summary>
        <LongText text={entry.text} markdown={false} />
      </details>
    );
  }
  return (
    <article class={`message ${entry.kind}`} aria-label={entry.kind === 'user' ? 'You' : 'Agent'}>
      <p class="speaker" aria-hidden="true">
        {entry.kind === 'user' ? 'You' : 'Agent'}
      </p>
      {entry.kind === 'user' ? (
        <pre class="plain">{entry.text}</pre>
      ) : (
        <LongText text={entry.text} markdown />
      )}
    </article>
  );
}

function json(value: unknown): string {
  try {
    const text = JSON.stringify(value, null, 2) ?? '';
    return text.length > SHOWN_CHARACTERS ? `${text.slice(0, SHOWN_CHARACTERS)}\n…` : text;
  } catch {
    return String(value);
  }
}

function DiffView({ content }: { content: ToolContent }) {
  const [mode, setMode] = useState<'unified' | 'split'>('unified');
  const lines = diffLines(content.oldText, content.newText ?? '');
  const sign = { same: ' ', removed: '-', added: '+' } as const;
  return (
    <figure class="diff">
      <figcaption>
        <span class="path">{content.path}</span>
        <button
          type="button"
          class="small"
          aria-pressed={mode === 'split'}
          onClick={() => setMode(mode === 'unified' ? 'split' : 'unified')}
        >
          {mode === 'unified' ? 'Side by side' : 'Unified'}
        </button>
      </figcaption>
      {mode === 'unified' ? (
        <pre class="diff-unified">
          {lines.map((line, index) => (
            <span key={index} class={`line ${line.type}`}>
              {sign[line.type]} {line.text}
              {'\n'}
            </span>
          ))}
        </pre>
      ) : (
        <div class="table-scroll">
          <table class="diff-split">
            <thead>
              <tr>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {sideBySide(lines).map((row, index) => (
                <tr key={index}>
                  <td class={row.left?.type ?? 'empty'}>{row.left?.text ?? ''}</td>
                  <td class={row.right?.type ?? 'empty'}>{row.right?.text ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}

const STATUS_LABELS: Record<string, string> = {
  pending: 'Pending',
  in_progress: 'Running',
  completed: 'Done',
  failed: 'Failed',
};

export function ToolCallView({ entry }: { entry: ToolCallEntry }) {
  const headingId = `${entry.key}-title`;
  return (
    <section class={`card tool status-${entry.status}`} aria-labelledby={headingId}>
      <header>
        <span class="tool-kind">{entry.toolKind}</span>
        <h3 id={headingId}>{entry.title || entry.toolCallId}</h3>
        <span class="tool-status" role="status">
          {STATUS_LABELS[entry.status] ?? entry.status}
        </span>
      </header>
      {entry.locations.length > 0 ? (
        <ul class="locations" aria-label="Locations">
          {entry.locations.map((location, index) => (
            <li key={index}>
              <code>
                {location.path}
                {typeof location.line === 'number' ? `:${location.line}` : ''}
              </code>
            </li>
          ))}
        </ul>
      ) : null}
      {entry.content.map((content, index) =>
        content.type === 'diff' ? (
          <DiffView key={index} content={content} />
        ) : content.type === 'terminal' ? (
          <figure key={index} class="terminal">
            <figcaption>Terminal {content.terminalId}</figcaption>
            <pre>{entry.terminalOutput || '(no output yet)'}</pre>
            {entry.exitCode !== undefined ? <p>Exit code {entry.exitCode}</p> : null}
          </figure>
        ) : (
          <LongText key={index} text={content.text ?? ''} markdown />
        ),
      )}
      {entry.rawInput !== undefined ? (
        <details>
          <summary>Arguments</summary>
          <pre class="plain">{json(entry.rawInput)}</pre>
        </details>
      ) : null}
      {entry.rawOutput !== undefined ? (
        <details>
          <summary>Result</summary>
          <pre class="plain">{json(entry.rawOutput)}</pre>
        </details>
      ) : null}
    </section>
  );
}

const OPTION_CLASS: Record<string, string> = {
  allow_once: 'primary',
  allow_always: '',
  reject_once: 'danger',
  reject_always: 'danger',
};

export function PermissionView({
  entry,
  onAnswer,
}: {
  entry: PermissionEntry;
  onAnswer: (optionId: string | undefined) => void;
}) {
  const headingId = `${entry.key}-title`;
  return (
    <section class="card permission" aria-labelledby={headingId}>
      <h3 id={headingId}>Permission: {entry.title}</h3>
      {entry.settled !== undefined ? (
        <p class="outcome">{entry.settled.summary}</p>
      ) : (
        <fieldset class="actions">
          <legend class="visually-hidden">Answer the permission request</legend>
          {entry.options.map((option) => (
            <button
              type="button"
              key={option.optionId}
              class={OPTION_CLASS[option.kind] ?? ''}
              onClick={() => onAnswer(option.optionId)}
            >
              {option.name}
            </button>
          ))}
        </fieldset>
      )}
    </section>
  );
}
