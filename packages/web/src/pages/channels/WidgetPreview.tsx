// A static picture of the website chat widget with the settings being edited: the launcher and the open
// panel on a sketch of a web page. It is not the real widget.js (nothing here is clickable or sends
// anything); it only follows the colour, title, greeting, position and the e-mail and name options.
import { Box, Text } from "@mantine/core";
import { LineIcon } from "../../components/LineIcon.tsx";
import { textOn, type WebChannelConfig } from "../../lib/channels.ts";

/** What the preview draws: the widget's settings but where it may run. */
export type PreviewSettings = Omit<WebChannelConfig, "allowedOrigins">;

const VALID_COLOR = /^#[0-9a-f]{6}$/i;

export function WidgetPreview({ settings }: { settings: PreviewSettings }) {
  const color = VALID_COLOR.test(settings.color) ? settings.color : "#2563eb";
  const ink = textOn(color);
  const side = settings.position === "left" ? { left: 16 } : { right: 16 };
  const title = settings.title.trim() || "Chat with us";
  const greeting = settings.greeting.trim() || "Hi! How can we help?";
  return (
    <Box
      component="figure"
      m={0}
      aria-label="Widget preview"
      data-testid="widget-preview"
      style={{
        position: "relative",
        height: 440,
        borderRadius: 8,
        border: "1px solid var(--mantine-color-gray-3)",
        background: "#f5f6f8",
        overflow: "hidden",
      }}
    >
      {/* A sketch of the business's page behind the widget. */}
      <Box aria-hidden style={{ padding: 16 }}>
        <Box style={{ height: 12, width: "45%", background: "#dde1e6", borderRadius: 4, marginBottom: 10 }} />
        <Box style={{ height: 8, width: "80%", background: "#e6e9ed", borderRadius: 4, marginBottom: 6 }} />
        <Box style={{ height: 8, width: "70%", background: "#e6e9ed", borderRadius: 4, marginBottom: 6 }} />
        <Box style={{ height: 8, width: "60%", background: "#e6e9ed", borderRadius: 4 }} />
      </Box>
      <Text component="figcaption" size="xs" c="#495057" px={16}>
        Preview: how the chat looks on your website.
      </Text>
      <Box
        data-testid="preview-panel"
        style={{
          position: "absolute",
          bottom: 84,
          ...side,
          width: "min(290px, calc(100% - 32px))",
          background: "#ffffff",
          borderRadius: 12,
          boxShadow: "0 6px 24px rgba(0,0,0,0.18)",
          overflow: "hidden",
          display: "flex",
          flexDirection: "column",
        }}
      >
        <Box px={14} py={10} style={{ background: color, color: ink }}>
          <Text fw={700} size="sm" c="inherit" data-testid="preview-title">
            {title}
          </Text>
        </Box>
        <Box px={12} py={10} style={{ display: "flex", flexDirection: "column", gap: 8, minHeight: 150 }}>
          {settings.showAgentName && (
            <Text size="xs" c="#495057">
              Sam
            </Text>
          )}
          <Box
            data-testid="preview-greeting"
            style={{
              alignSelf: "flex-start",
              maxWidth: "85%",
              background: "#f1f3f5",
              color: "#1a1b1e",
              borderRadius: 12,
              padding: "6px 10px",
              whiteSpace: "pre-wrap",
              wordBreak: "break-word",
              fontSize: 13,
            }}
          >
            {greeting}
          </Box>
          <Box
            style={{
              alignSelf: "flex-end",
              maxWidth: "85%",
              background: color,
              color: ink,
              borderRadius: 12,
              padding: "6px 10px",
              fontSize: 13,
            }}
          >
            Do you deliver on Saturdays?
          </Box>
          {settings.collectEmail && (
            <Box
              style={{
                alignSelf: "flex-start",
                maxWidth: "85%",
                border: "1px solid #ced4da",
                color: "#1a1b1e",
                borderRadius: 12,
                padding: "6px 10px",
                fontSize: 12,
              }}
            >
              No one here yet? Leave your e-mail and we will answer there too.
            </Box>
          )}
        </Box>
        <Box
          px={10}
          py={8}
          style={{ borderTop: "1px solid #e9ecef", display: "flex", gap: 6, alignItems: "center" }}
        >
          <Box
            style={{
              flex: 1,
              border: "1px solid #ced4da",
              borderRadius: 8,
              padding: "5px 8px",
              fontSize: 13,
              color: "#495057",
            }}
          >
            Message
          </Box>
          <Box
            style={{
              background: color,
              color: ink,
              borderRadius: 8,
              padding: "5px 10px",
              fontSize: 13,
              fontWeight: 600,
            }}
          >
            Send
          </Box>
        </Box>
      </Box>
      {/* The launcher button. */}
      <Box
        data-testid="preview-launcher"
        data-position={settings.position}
        style={{
          position: "absolute",
          bottom: 16,
          ...side,
          width: 56,
          height: 56,
          borderRadius: "50%",
          background: color,
          color: ink,
          display: "flex",
          alignItems: "center",
          justifyContent: "center",
          boxShadow: "0 4px 14px rgba(0,0,0,0.25)",
        }}
      >
        <LineIcon size={26}>
          <path d="M4 5h16v11H9l-5 4z" />
        </LineIcon>
      </Box>
    </Box>
  );
}
