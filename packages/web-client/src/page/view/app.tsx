// The page: header (agent, session, modes, options, usage), plan, transcript, and the prompt box with Send and Cancel.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Conversation, Entry } from '../state/conversation.js';
import type { SessionController } from '../state/session-controller.js';
import { PermissionView, TextView, ToolCallView } from './entries.js';
import { FormView } from './form-view.js';

const LINK_TEXT: Record<string, string> = {
  connecting: 'Connecting…',
  open: 'Connected',
  reconnecting: 'Reconnecting…',
  ended: 'Disconnected',
  replaced: 'Opened in another tab',
};

function EntryView({ entry, controller }: { entry: Entry; controller: SessionController }) {
  switch (entry.kind) {
    case 'user':
    case 'agent':
    case 'thought':
      return <TextView entry={entry} />;
    case 'tool':
      return <ToolCallView entry={entry} />;
    case 'permission':
      return (
        <PermissionView
          entry={entry}
          onAnswer={(optionId) => void controller.answerPermission(entry, optionId)}
        />
      );
    case 'form':
      return (
        <FormView
          entry={entry}
          onAnswer={(action, content) => void controller.answerForm(entry, action, content)}
        />
      );
    case 'notice':
      return (
        <p class={`notice ${entry.tone}`} role={entry.tone === 'error' ? 'alert' : 'status'}>
          {entry.text}
        </p>
      );
  }
}

function PlanView({ conversation }: { conversation: Conversation }) {
  if (conversation.plan.length === 0) return null;
  const done = conversation.plan.filter((entry) => entry.status === 'completed').length;
  return (
    <details class="plan" open>
      <summary>
        Plan ({done} of {conversation.plan.length} done)
      </summary>
      <ol>
        {conversation.plan.map((entry, index) => (
          <li key={index} class={`plan-${entry.status}`}>
            <span class="plan-status">{entry.status.replace('_', ' ')}</span> {entry.content}
            {entry.priority === 'high' ? <span class="plan-priority"> (high priority)</span> : null}
          </li>
        ))}
      </ol>
    </details>
  );
}

function SessionTools({ controller }: { controller: SessionController }) {
  const conversation = controller.conversation;
  return (
    <div class="session-tools">
      <button type="button" onClick={() => void controller.newSession()}>
        New session
      </button>
      {controller.agent.listSessions ? (
        <button type="button" onClick={() => void controller.listSessions()}>
          Sessions
        </button>
      ) : null}
      {conversation.modes.length > 0 ? (
        <label>
          Mode{' '}
          <select
            value={conversation.currentModeId}
            onChange={(event) => void controller.setMode((event.currentTarget as HTMLSelectElement).value)}
          >
            {conversation.modes.map((mode) => (
              <option key={mode.id} value={mode.id} title={mode.description ?? undefined}>
                {mode.name}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {conversation.configOptions.map((option) =>
        option.type === 'boolean' ? (
          <label key={option.id}>
            <input
              type="checkbox"
              checked={option.currentValue === true}
              onChange={(event) =>
                void controller.setConfigOption(option.id, (event.currentTarget as HTMLInputElement).checked)
              }
            />{' '}
            {option.name}
          </label>
        ) : (
          <label key={option.id}>
            {option.name}{' '}
            <select
              value={String(option.currentValue)}
              onChange={(event) =>
                void controller.setConfigOption(option.id, (event.currentTarget as HTMLSelectElement).value)
              }
            >
              {option.options.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.name}
                </option>
              ))}
            </select>
          </label>
        ),
      )}
      {conversation.usage !== undefined ? (
        <span class="usage">
          Context: {conversation.usage.used.toLocaleString()} / {conversation.usage.size.toLocaleString()}{' '}
          tokens
          {conversation.usage.cost !== undefined
            ? ` · ${conversation.usage.cost.amount.toFixed(2)} ${conversation.usage.cost.currency}`
            : ''}
        </span>
      ) : null}
    </div>
  );
}

function SessionList({ controller }: { controller: SessionController }) {
  const sessions = controller.sessions;
  if (sessions === undefined) return null;
  return (
    <section class="card sessions" aria-label="Sessions">
      <h2>Sessions</h2>
      {sessions.length === 0 ? <p>No sessions.</p> : null}
      <ul>
        {sessions.map((session) => (
          <li key={session.sessionId}>
            <button
              type="button"
              disabled={!controller.agent.loadSession}
              onClick={() => void controller.loadSession(session.sessionId)}
            >
              {session.title}
            </button>
            {session.updatedAt !== undefined ? <span class="when"> {session.updatedAt}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Composer({ controller }: { controller: SessionController }) {
  const [text, setText] = useState('');
  const conversation = controller.conversation;
  const busy = conversation.turnActive;
  // Until the agent answered session/new there is nothing to prompt: the text stays in the box (never dropped).
  const ready = (controller.link === 'open' || controller.link === 'reconnecting') && controller.hasSession;
  const send = (event: Event) => {
    event.preventDefault();
    if (busy || !ready || text.trim() === '') return;
    void controller.prompt(text);
    setText('');
  };
  const matching = text.startsWith('/')
    ? conversation.commands.filter((command) => `/${command.name}`.startsWith(text.split(' ')[0] ?? ''))
    : [];
  return (
    <form class="composer" onSubmit={send}>
      {matching.length > 0 ? (
        <ul class="commands" aria-label="Slash commands">
          {matching.map((command) => (
            <li key={command.name}>
              <button type="button" class="small" onClick={() => setText(`/${command.name} `)}>
                /{command.name}
              </button>{' '}
              {command.description}
            </li>
          ))}
        </ul>
      ) : null}
      <label for="prompt" class="visually-hidden">
        Message to the agent
      </label>
      <textarea
        id="prompt"
        rows={2}
        value={text}
        placeholder={conversation.commands.length > 0 ? 'Message, or / for commands' : 'Message'}
        onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) send(event);
        }}
      />
      <div class="composer-actions">
        {busy ? (
          <button type="button" class="danger" onClick={() => void controller.cancel()}>
            Cancel turn
          </button>
        ) : null}
        <button type="submit" class="primary" disabled={busy || !ready}>
          Send
        </button>
      </div>
    </form>
  );
}

/** The whole page, redrawn once per animation frame while updates arrive. */
export function App({ controller }: { controller: SessionController }) {
  const [, setFrame] = useState(0);
  useEffect(() => controller.subscribe(() => setFrame((frame) => frame + 1)), [controller]);
  const conversation = controller.conversation;
  const bottom = useRef<HTMLDivElement>(null);
  const entries = conversation.entries;
  const lastKey = entries.at(-1)?.key;
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [lastKey, conversation.version]);
  return (
    <>
      <header class="top">
        <h1>{controller.agent.name}</h1>
        <p class={`link link-${controller.link}`} role="status">
          {LINK_TEXT[controller.link]}
          {controller.linkDetail !== undefined && controller.link !== 'open'
            ? `: ${controller.linkDetail}`
            : ''}
        </p>
        {conversation.title !== undefined ? <h2 class="session-title">{conversation.title}</h2> : null}
        <SessionTools controller={controller} />
      </header>
      <main>
        <SessionList controller={controller} />
        <PlanView conversation={conversation} />
        <div class="transcript" role="log" aria-label="Conversation" aria-busy={conversation.turnActive}>
          {entries.map((entry) => (
            <EntryView key={entry.key} entry={entry} controller={controller} />
          ))}
          {conversation.turnActive ? (
            <p class="working" role="status">
              The agent is working…
            </p>
          ) : null}
          <div ref={bottom} />
        </div>
      </main>
      <Composer controller={controller} />
    </>
  );
}
