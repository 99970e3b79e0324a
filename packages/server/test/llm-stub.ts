// A local stand-in for a hosted OpenAI-compatible LLM (the one third party the bot talks to): a real
// HTTP server on 127.0.0.1 that answers POST /v1/chat/completions and records every request.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model: string;
    messages: {
      role: string;
      content: string | null | { type: string; text?: string }[];
      tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
      tool_call_id?: string;
    }[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    [key: string]: unknown;
  };
}

export interface StubAnswer {
  status?: number;
  /** Assistant text for a 200; ignored otherwise. */
  content?: string;
  /**
   * A 200 that asks the caller to run functions (OpenAI `tool_calls`, finish_reason "tool_calls"):
   * `arguments` is sent JSON-encoded as the API does, or as given when it is already a string (so a
   * test can send malformed JSON).
   */
  toolCalls?: { id?: string; name: string; arguments: unknown }[];
  /** Token counts reported in `usage` (default 10 prompt, 5 completion). */
  usage?: { prompt: number; completion: number };
  /** Raw body for non-200 answers. */
  errorBody?: unknown;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface LlmStub {
  /** Base URL to configure (ends in /v1). */
  baseUrl: string;
  requests: ChatRequest[];
  /** Decides each answer; default: 200 with "stub answer". */
  respond: (req: ChatRequest, index: number) => StubAnswer;
  reset(): void;
  close(): Promise<void>;
}

/** The text of a message, whether the SDK sent a string or content parts. */
export function textOf(content: ChatRequest["body"]["messages"][number]["content"]): string {
  if (content === null) return "";
  return typeof content === "string" ? content : content.map((p) => p.text ?? "").join("");
}

export async function startLlmStub(): Promise<LlmStub> {
  const defaultRespond = (): StubAnswer => ({ content: "stub answer" });
  const sockets = new Set<import("node:net").Socket>();
  const stub: LlmStub = {
    baseUrl: "",
    requests: [],
    respond: defaultRespond,
    reset() {
      stub.requests.length = 0;
      stub.respond = defaultRespond;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: ChatRequest["body"];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest["body"];
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"bad json"}}');
        return;
      }
      const request: ChatRequest = { path: req.url ?? "", headers: req.headers, body };
      const index = stub.requests.push(request) - 1;
      if (req.method !== "POST" || !request.path.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      const answer = stub.respond(request, index);
      const send = () => {
        if (res.destroyed) return;
        const status = answer.status ?? 200;
        const headers = { "content-type": "application/json", ...answer.headers };
        if (status !== 200) {
          res
            .writeHead(status, headers)
            .end(
              JSON.stringify(
                answer.errorBody ?? { error: { message: "stub failure", type: "server_error" } },
              ),
            );
          return;
        }
        res.writeHead(200, headers).end(
          JSON.stringify({
            id: `chatcmpl-${index}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [
              answer.toolCalls
                ? {
                    index: 0,
                    message: {
                      role: "assistant",
                      content: null,
                      tool_calls: answer.toolCalls.map((c, i) => ({
                        id: c.id ?? `call_${index}_${i}`,
                        type: "function",
                        function: {
                          name: c.name,
                          arguments:
                            typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
                        },
                      })),
                    },
                    finish_reason: "tool_calls",
                  }
                : {
                    index: 0,
                    message: { role: "assistant", content: answer.content ?? "" },
                    finish_reason: "stop",
                  },
            ],
            usage: {
              prompt_tokens: answer.usage?.prompt ?? 10,
              completion_tokens: answer.usage?.completion ?? 5,
              total_tokens: (answer.usage?.prompt ?? 10) + (answer.usage?.completion ?? 5),
            },
          }),
        );
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return stub;
}
