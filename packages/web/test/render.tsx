// Renders a component as the app does (Mantine with the app's theme, notifications, a QueryClient and a
// router at `route`), with the server answered by `server`: the routes it knows answer JSON, the
// others 404. `requests` lists what was asked, to check what the component sends. Mantine runs with
// env="test": no transitions and no portals, so what opens is there at once.
import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type RenderResult, render as renderInDom } from "@testing-library/react";
import type { ReactElement } from "react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { vi } from "vitest";
import { cssVariables, theme } from "../src/lib/theme.ts";

export interface Request {
  method: string;
  /** Path and query under /app/api, e.g. "/conversations?status=open&limit=50". */
  path: string;
  body: unknown;
}

/** `"GET /conversations"` (the path without its query) -> the JSON answer, or a function of the request. */
export type FakeServer = Record<string, unknown | ((request: Request) => unknown)>;

export interface Rendered extends RenderResult {
  requests: Request[];
  /** The router's current path and query, e.g. "/inbox?humanAlert=true". */
  location: () => string;
}

export function render(ui: ReactElement, options: { route?: string; server?: FakeServer } = {}): Rendered {
  const requests: Request[] = [];
  const server = options.server ?? {};
  vi.stubGlobal("fetch", async (input: string, init: RequestInit = {}) => {
    const path = String(input).replace(/^\/app\/api/, "");
    const method = init.method ?? "GET";
    const body = typeof init.body === "string" ? (JSON.parse(init.body) as unknown) : (init.body ?? null);
    const request = { method, path, body };
    requests.push(request);
    const key = `${method} ${path.split("?")[0]}`;
    if (!(key in server)) {
      return new Response(JSON.stringify({ error: { code: "NOT_FOUND", message: `No fake for ${key}` } }), {
        status: 404,
      });
    }
    const answer = server[key];
    const json = typeof answer === "function" ? (answer as (r: Request) => unknown)(request) : answer;
    return new Response(JSON.stringify(json), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  });
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  let location = "";
  const result = renderInDom(
    <MantineProvider theme={theme} cssVariablesResolver={cssVariables} defaultColorScheme="light" env="test">
      <Notifications />
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[options.route ?? "/"]}>
          <Routes>
            <Route path="*" element={ui} />
          </Routes>
          <Location
            onChange={(at) => {
              location = at;
            }}
          />
        </MemoryRouter>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return Object.assign(result, { requests, location: () => location });
}

function Location({ onChange }: { onChange: (at: string) => void }) {
  const l = useLocation();
  onChange(`${l.pathname}${l.search}`);
  return null;
}

/** An empty page of a cursor-paged list. */
export const emptyPage = { data: [], hasMore: false, nextCursor: null };
