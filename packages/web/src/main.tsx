import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import "@mantine/charts/styles.css";
import { Notifications } from "@mantine/notifications";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App.tsx";
import { BrandedMantine } from "./components/BrandedMantine.tsx";
import { ApiError } from "./lib/api.ts";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Client errors (404, 403) will not change on a retry; network trouble may.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {/* Inside the queries: the theme follows the session's brand (an agency's sub-accounts). */}
      <BrandedMantine>
        <Notifications position="top-right" />
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </BrandedMantine>
    </QueryClientProvider>
  </StrictMode>,
);
