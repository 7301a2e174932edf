// DeepAgents' `write_todos` and langchain's todoListMiddleware keep a `todos` list in the graph state; each new list
// is an ACP `plan` update (the whole plan, as the protocol wants).
import type { PlanEntry, SessionUpdate } from '@agentclientprotocol/sdk';

const STATUSES = new Set(['pending', 'in_progress', 'completed']);

/** The `plan` update for a todo list, or `undefined` when it holds no readable entry. */
export function planFromTodos(todos: readonly unknown[]): SessionUpdate | undefined {
  const entries: PlanEntry[] = [];
  for (const todo of todos) {
    if (typeof todo !== 'object' || todo === null) continue;
    const { content, status } = todo as { content?: unknown; status?: unknown };
    if (typeof content !== 'string') continue;
    entries.push({
      content,
      priority: 'medium',
      status:
        typeof status === 'string' && STATUSES.has(status) ? (status as PlanEntry['status']) : 'pending',
    });
  }
  if (entries.length === 0 && todos.length > 0) return undefined;
  return { sessionUpdate: 'plan', entries };
}
