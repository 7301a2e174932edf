// The mirror's frame policy: host ownership, session cwd rewrites, the unstable-method gate, latency _meta, in-flight
// requests.
import { performance } from 'node:perf_hooks';
import type { HostOwnership } from '../options/options.js';
import type { FrameLog } from '../relay/frame-log.js';
import type { FramePolicy, RelayDirection } from '../relay/relay-core.js';
import { RemoteProtocol } from '../shared/constants.js';
import { isUnstableMethod } from '../shared/unstable-methods.js';
import { ByteSplice, forEachMember, lastMember, setMember } from '../wire/frame-rewrite.js';
import {
  compileWatch,
  type FrameScanner,
  ValueKind,
  type WatchNode,
  type WatchSpec,
} from '../wire/frame-scan.js';
import { errorResponseText, idKey, type WireError, wireErrors } from '../wire/json-rpc.js';
import { scannedIdKey } from '../wire/route-keys.js';

/** Methods of the editor's host capabilities: with `remote` ownership they are never the remote agent's. */
const HOST_METHOD = /^(?:fs|terminal)\//;
const DENIED_CAPABILITIES = '{"readTextFile":false,"writeTextFile":false}';
/** What the mirror's policy needs to know, resolved once per mirror. */
export interface MirrorPolicyOptions {
  readonly hostOwnership: HostOwnership;
  readonly useUnstableProtocol: boolean;
  readonly emitLatencyMeta: boolean;
  /** The server's `remote_cwd`: session requests' `cwd` is rewritten to it. */
  readonly remoteCwd: string | undefined;
  readonly log: FrameLog;
  /** Editor requests that may wait for the remote's answer at once; one more is answered here with an error. */
  readonly maxPendingRequests: number;
}

/** The envelope of one frame (top-level members), read from its scan. */
interface Envelope {
  /** Member record of the last `id` (the one JSON.parse keeps), or -1. */
  id: number;
  /** Member records of the first and last `method`, or -1. */
  firstMethod: number;
  lastMethod: number;
  /** The last `params` that is an object: its object record, or -1. */
  params: number;
  hasResultOrError: boolean;
}

interface PromptTiming {
  requestKey: string;
  startedAt: number;
  firstUpdateMs: number | undefined;
  updateCount: number;
}

function isWireIdKind(kind: number): boolean {
  return kind === ValueKind.String || kind === ValueKind.Number || kind === ValueKind.Null;
}

/**
 * The mirror's policy on top of the relay core: host ownership (the editor's `fs`/`terminal` capabilities hidden in
 * `initialize`, and requests for them from the remote answered `-32601` here, never forwarded), `cwd` of session
 * requests rewritten to the server's `remote_cwd`, the unstable-method gate, latency metadata, and the editor's
 * requests in flight (answered with a transport-loss error if the connection goes). Rewrites splice bytes at the
 * positions the relay's single scan found; each direction watches only what the options need.
 */
export class MirrorPolicy {
  /** Editor requests sent upstream and not yet answered: tracking key → id as the editor wrote it. */
  readonly inFlight = new Map<string, string>();
  /** Called when an answer arrives (the mirror closes once input ended and nothing is in flight). */
  onAnswered: () => void = () => {};
  private readonly prompts = new Map<string, PromptTiming[]>();
  private readonly editorWatch: WatchNode;
  private readonly remoteWatch: WatchNode;
  private readonly editor: Nodes;
  private readonly remote: Nodes;
  private readonly envelope: Envelope = {
    id: -1,
    firstMethod: -1,
    lastMethod: -1,
    params: -1,
    hasResultOrError: false,
  };

  constructor(private readonly options: MirrorPolicyOptions) {
    const hidesHost = options.hostOwnership === 'remote';
    const editorParams: Record<string, WatchSpec | true> = {};
    if (hidesHost)
      editorParams.clientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };
    if (options.remoteCwd !== undefined) editorParams.cwd = true;
    if (options.emitLatencyMeta) editorParams.sessionId = true;
    this.editorWatch = compileWatch({ id: true, method: true, params: editorParams });
    // The remote's params matter only for latency metadata: without it they are never tracked.
    this.remoteWatch = compileWatch({
      id: true,
      method: true,
      result: true,
      error: true,
      ...(options.emitLatencyMeta
        ? { params: { sessionId: true, _meta: { [RemoteProtocol.transportLatencyMetaKey]: true } } }
        : {}),
    });
    this.editor = nodesOf(this.editorWatch);
    this.remote = nodesOf(this.remoteWatch);
  }

  /** What the relay watches in the editor's frames. */
  get editorRules() {
    return { utf8: 'repair', singleLine: true, watch: this.editorWatch } as const;
  }

  /** What the relay watches in the remote's frames. */
  get remoteRules() {
    return { utf8: 'trusted', singleLine: true, watch: this.remoteWatch } as const;
  }

  /**
   * Frames from the editor. `connected` says whether the socket is open (a request to a closed socket gets the
   * transport-loss error from `lost`).
   */
  fromEditor(connected: () => boolean, lost: () => WireError): FramePolicy {
    return (payload, direction) => {
      const scan = direction.scan;
      const envelope = this.readEnvelope(scan, this.editor);
      const method = envelope.lastMethod >= 0 ? this.methodOf(scan, envelope.lastMethod) : undefined;
      if (method === undefined) {
        direction.forward(payload); // a response to the remote, or something neither side will take as a call
        return;
      }
      const isRequest = envelope.id >= 0;
      if (isRequest && !isWireIdKind(scan.memberValueKind[envelope.id]!)) {
        direction.forward(payload); // an id no JSON-RPC peer accepts: relayed as is, like any unknown frame
        return;
      }
      if (this.refusedAsUnstable(method, envelope, direction, 'editor')) return;
      let outgoing: Buffer;
      try {
        outgoing = this.rewriteEditorFrame(payload, scan, method, envelope);
      } catch (error) {
        // Never expected (the rewrites splice bytes and cannot recurse), but a frame the mirror cannot rewrite gets
        // an answer instead of taking the mirror down.
        this.options.log.logger.error('could not rewrite a message from the editor; answered with an error', {
          method,
          error: String(error),
        });
        if (isRequest) {
          direction.reply(
            errorResponseText(
              scan.memberToken(envelope.id),
              wireErrors.internalError({ reason: 'the mirror could not rewrite this message' }),
            ),
          );
        }
        return;
      }
      if (isRequest) {
        const idToken = scan.memberToken(envelope.id);
        if (!connected()) {
          direction.reply(errorResponseText(idToken, lost()));
          return;
        }
        const key = this.trackingKey(scan, envelope.id);
        if (this.inFlight.size >= this.options.maxPendingRequests && !this.inFlight.has(key)) {
          this.options.log.warn(
            'too many editor requests waiting for an answer; answered one with an error',
            {
              maxPendingRequests: this.options.maxPendingRequests,
            },
          );
          direction.reply(
            errorResponseText(idToken, wireErrors.tooManyPendingRequests(this.options.maxPendingRequests)),
          );
          return;
        }
        this.inFlight.set(key, idToken);
        if (this.options.emitLatencyMeta && method === 'session/prompt')
          this.startPrompt(scan, envelope, key);
      }
      direction.forward(outgoing);
    };
  }

  /** Frames from the remote. */
  fromRemote(): FramePolicy {
    return (payload, direction) => {
      const scan = direction.scan;
      const envelope = this.readEnvelope(scan, this.remote);
      const method = envelope.lastMethod >= 0 ? this.methodOf(scan, envelope.lastMethod) : undefined;
      const hasId = envelope.id >= 0;
      const usableId = hasId && isWireIdKind(scan.memberValueKind[envelope.id]!);
      if (this.options.hostOwnership === 'remote' && envelope.lastMethod >= 0) {
        // Enforced whatever the frame's shape: any `method` key (parsers differ on which duplicate wins), any id
        // (an unusable one is answered with id null).
        const first =
          envelope.firstMethod === envelope.lastMethod ? method : this.methodOf(scan, envelope.firstMethod);
        const hostMethod = [method, first].find((name) => name !== undefined && HOST_METHOD.test(name));
        if (hostMethod !== undefined) {
          this.options.log.warn(
            'refused a host capability request from the remote: host ownership is remote',
            {
              method: hostMethod,
            },
          );
          if (hasId) {
            direction.reply(
              errorResponseText(
                usableId ? scan.memberToken(envelope.id) : 'null',
                wireErrors.methodNotFound(hostMethod),
              ),
            );
          }
          return;
        }
      }
      if (method === undefined) {
        if (usableId && envelope.hasResultOrError) {
          const key = this.trackingKey(scan, envelope.id);
          if (this.inFlight.delete(key)) {
            if (this.options.emitLatencyMeta) this.finishPrompt(key);
            this.onAnswered();
          }
        }
        direction.forward(payload);
        return;
      }
      if (hasId && !usableId) {
        direction.forward(payload); // an id no JSON-RPC peer accepts: relayed as is, like any unknown frame
        return;
      }
      if (this.refusedAsUnstable(method, envelope, direction, 'remote')) return;
      if (this.options.emitLatencyMeta && !hasId && method === 'session/update') {
        let withLatency = payload;
        try {
          withLatency = this.addLatencyMeta(payload, scan, envelope);
        } catch (error) {
          // Latency metadata is optional: relay the update as it came rather than lose it.
          this.options.log.logger.error('could not add latency metadata; relayed the update unchanged', {
            error: String(error),
          });
        }
        direction.forward(withLatency);
        return;
      }
      direction.forward(payload);
    };
  }

  /**
   * The unstable-method gate: without `useUnstableProtocol`, a request for a method only the SDK's `/unstable`
   * entrypoint defines is answered `-32601` here and a notification is dropped with a note. True when it applied.
   */
  private refusedAsUnstable(
    method: string,
    envelope: Envelope,
    direction: RelayDirection,
    sender: 'editor' | 'remote',
  ): boolean {
    if (this.options.useUnstableProtocol || !isUnstableMethod(method)) return false;
    if (envelope.id >= 0) {
      direction.reply(
        errorResponseText(direction.scan.memberToken(envelope.id), wireErrors.methodNotFound(method)),
      );
    } else {
      this.options.log.warn(`dropped unstable notification from the ${sender} (enable useUnstableProtocol)`, {
        method,
      });
    }
    return true;
  }

  /**
   * Tracking key of an id: `1`, `1.0` and `1e0` are one id and `"1"` another, as the remote's JSON parser sees them
   * (the key routing uses too: `scannedIdKey`). Only ids a JSON-RPC peer accepts are tracked.
   */
  private trackingKey(scan: FrameScanner, member: number): string {
    return scannedIdKey(scan, member) ?? idKey(null);
  }

  /** The method named by member `member` when it is a string, else undefined. */
  private methodOf(scan: FrameScanner, member: number): string | undefined {
    return scan.memberValueKind[member] === ValueKind.String ? scan.memberString(member) : undefined;
  }

  private readEnvelope(scan: FrameScanner, nodes: Nodes): Envelope {
    const envelope = this.envelope;
    envelope.id = -1;
    envelope.firstMethod = -1;
    envelope.lastMethod = -1;
    envelope.params = -1;
    envelope.hasResultOrError = false;
    for (let member = 0; member < scan.memberCount; member += 1) {
      if (scan.memberObject[member] !== 0) continue;
      const node = scan.memberNode[member];
      if (node === nodes.id) envelope.id = member;
      else if (node === nodes.method) {
        if (envelope.firstMethod < 0) envelope.firstMethod = member;
        envelope.lastMethod = member;
      } else if (node === nodes.params) {
        envelope.params =
          scan.memberValueKind[member] === ValueKind.Object ? scan.memberChildObject[member]! : -1;
      } else if (node === nodes.result || node === nodes.error) envelope.hasResultOrError = true;
    }
    return envelope;
  }

  /** Host ownership on `initialize`, `remote_cwd` on session requests; the payload itself when nothing changes. */
  private rewriteEditorFrame(
    payload: Buffer,
    scan: FrameScanner,
    method: string,
    envelope: Envelope,
  ): Buffer {
    const nodes = this.editor;
    if (method === 'initialize' && nodes.clientCapabilities !== undefined) {
      const splice = new ByteSplice();
      for (const params of this.paramsObjects(scan, nodes)) this.denyHostCapabilities(splice, scan, params);
      return splice.isEmpty ? payload : splice.apply(payload);
    }
    if (nodes.cwd === undefined || envelope.params < 0 || !method.startsWith('session/')) return payload;
    // Rewritten when the cwd JSON.parse would see is a string other than remote_cwd; then every occurrence is.
    const remoteCwd = this.options.remoteCwd!;
    const effective = lastMember(scan, envelope.params, nodes.cwd);
    if (
      effective < 0 ||
      scan.memberValueKind[effective] !== ValueKind.String ||
      scan.memberString(effective) === remoteCwd
    ) {
      return payload;
    }
    const value = JSON.stringify(remoteCwd);
    const splice = new ByteSplice();
    for (const params of this.paramsObjects(scan, nodes)) {
      forEachMember(scan, params, nodes.cwd, (member) => {
        if (scan.memberValueKind[member] === ValueKind.String) {
          splice.replace(scan.memberValueStart[member]!, scan.memberValueEnd[member]!, value);
        }
      });
    }
    return splice.apply(payload);
  }

  /** Sets `fs.readTextFile`, `fs.writeTextFile` and `terminal` false in `params.clientCapabilities`, keeping the rest. */
  private denyHostCapabilities(splice: ByteSplice, scan: FrameScanner, params: number): void {
    const nodes = this.editor;
    const capabilitiesNode = nodes.clientCapabilities!;
    const found = forEachMember(scan, params, capabilitiesNode, (member, capabilities) => {
      if (capabilities < 0) {
        splice.replace(
          scan.memberValueStart[member]!,
          scan.memberValueEnd[member]!,
          `{"fs":${DENIED_CAPABILITIES},"terminal":false}`,
        );
        return;
      }
      const hasFs = forEachMember(scan, capabilities, nodes.fs!, (fsMember, fs) => {
        if (fs < 0) {
          splice.replace(
            scan.memberValueStart[fsMember]!,
            scan.memberValueEnd[fsMember]!,
            DENIED_CAPABILITIES,
          );
          return;
        }
        setMember(splice, scan, fs, nodes.readTextFile!, 'false');
        setMember(splice, scan, fs, nodes.writeTextFile!, 'false');
      });
      if (!hasFs) splice.appendMember(scan, capabilities, 'fs', DENIED_CAPABILITIES);
      // Appended after `fs` when both are missing (the order an object spread gave before).
      setMember(splice, scan, capabilities, nodes.terminal!, 'false');
    });
    if (!found)
      splice.appendMember(
        scan,
        params,
        'clientCapabilities',
        `{"fs":${DENIED_CAPABILITIES},"terminal":false}`,
      );
  }

  /** Object records of every `params` member that is an object (duplicates included). */
  private paramsObjects(scan: FrameScanner, nodes: Nodes): number[] {
    const objects: number[] = [];
    if (nodes.params === undefined) return objects;
    forEachMember(scan, 0, nodes.params, (_member, object) => {
      if (object >= 0) objects.push(object);
    });
    return objects;
  }

  private sessionIdOf(scan: FrameScanner, params: number, node: WatchNode | undefined): string | undefined {
    if (node === undefined || params < 0) return undefined;
    const member = lastMember(scan, params, node);
    return member >= 0 && scan.memberValueKind[member] === ValueKind.String
      ? scan.memberString(member)
      : undefined;
  }

  private startPrompt(scan: FrameScanner, envelope: Envelope, requestKey: string): void {
    const sessionId = this.sessionIdOf(scan, envelope.params, this.editor.sessionId);
    if (sessionId === undefined) return;
    const list = this.prompts.get(sessionId) ?? [];
    list.push({ requestKey, startedAt: performance.now(), firstUpdateMs: undefined, updateCount: 0 });
    this.prompts.set(sessionId, list);
  }

  private finishPrompt(key: string): void {
    for (const [sessionId, list] of this.prompts) {
      const index = list.findIndex((timing) => timing.requestKey === key);
      if (index === -1) continue;
      list.splice(index, 1);
      if (list.length === 0) this.prompts.delete(sessionId);
      return;
    }
  }

  /** Adds the transport timings under `params._meta` of a `session/update` (unchanged when params is no object). */
  private addLatencyMeta(payload: Buffer, scan: FrameScanner, envelope: Envelope): Buffer {
    if (envelope.params < 0) return payload;
    const nodes = this.remote;
    const sessionId = this.sessionIdOf(scan, envelope.params, nodes.sessionId);
    const timing = sessionId === undefined ? undefined : this.prompts.get(sessionId)?.at(-1);
    const now = performance.now();
    let latency: Record<string, number> = { receivedAtMs: Date.now() };
    if (timing) {
      timing.updateCount += 1;
      timing.firstUpdateMs ??= Math.round((now - timing.startedAt) * 1000) / 1000;
      latency = {
        ...latency,
        elapsedMs: Math.round((now - timing.startedAt) * 1000) / 1000,
        firstUpdateMs: timing.firstUpdateMs,
        updateCount: timing.updateCount,
      };
    }
    const latencyJson = JSON.stringify(latency);
    const splice = new ByteSplice();
    for (const params of this.paramsObjects(scan, nodes)) {
      const found = forEachMember(scan, params, nodes.meta!, (member, meta) => {
        if (meta < 0) {
          splice.replace(
            scan.memberValueStart[member]!,
            scan.memberValueEnd[member]!,
            `{${JSON.stringify(RemoteProtocol.transportLatencyMetaKey)}:${latencyJson}}`,
          );
        } else setMember(splice, scan, meta, nodes.latency!, latencyJson);
      });
      if (!found)
        splice.appendMember(
          scan,
          params,
          '_meta',
          `{${JSON.stringify(RemoteProtocol.transportLatencyMetaKey)}:${latencyJson}}`,
        );
    }
    return splice.apply(payload);
  }
}

/** The watch nodes a policy compares members against (undefined when the options do not watch them). */
interface Nodes {
  id: WatchNode;
  method: WatchNode;
  params: WatchNode | undefined;
  result: WatchNode | undefined;
  error: WatchNode | undefined;
  sessionId: WatchNode | undefined;
  cwd: WatchNode | undefined;
  clientCapabilities: WatchNode | undefined;
  fs: WatchNode | undefined;
  readTextFile: WatchNode | undefined;
  writeTextFile: WatchNode | undefined;
  terminal: WatchNode | undefined;
  meta: WatchNode | undefined;
  latency: WatchNode | undefined;
}

function nodesOf(root: WatchNode): Nodes {
  const child = (node: WatchNode | undefined, key: string) =>
    node?.children.find((candidate) => candidate.key === key);
  const params = child(root, 'params');
  const capabilities = child(params, 'clientCapabilities');
  const fs = child(capabilities, 'fs');
  const meta = child(params, '_meta');
  return {
    id: child(root, 'id')!,
    method: child(root, 'method')!,
    params,
    result: child(root, 'result'),
    error: child(root, 'error'),
    sessionId: child(params, 'sessionId'),
    cwd: child(params, 'cwd'),
    clientCapabilities: capabilities,
    fs,
    readTextFile: child(fs, 'readTextFile'),
    writeTextFile: child(fs, 'writeTextFile'),
    terminal: child(capabilities, 'terminal'),
    meta,
    latency: child(meta, RemoteProtocol.transportLatencyMetaKey),
  };
}
