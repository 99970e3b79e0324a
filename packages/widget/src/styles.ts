// The widget's CSS, inside its shadow root: nothing of the page applies, nothing leaks out. Sized to
// fit a 390 px phone: the panel takes the whole width below 480 px.
export const STYLES = `
:host { all: initial; }
.wrap { position: fixed; bottom: 20px; z-index: 2147483000; font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; }
.wrap.right { right: 20px; } .wrap.left { left: 20px; }
.launcher { width: 56px; height: 56px; border-radius: 50%; border: 0; background: var(--accent); color: var(--on-accent, #fff); cursor: pointer; box-shadow: 0 4px 14px rgba(0,0,0,.25); display: grid; place-items: center; }
.wrap.left .launcher { float: left; } .wrap.right .launcher { float: right; }
button:focus-visible, input:focus-visible, .log:focus-visible { outline: 3px solid #111827; outline-offset: 2px; }
.panel { box-sizing: border-box; width: 360px; max-width: calc(100vw - 24px); height: 540px; max-height: calc(100vh - 110px); margin-bottom: 12px; background: #fff; border-radius: 14px; box-shadow: 0 10px 40px rgba(0,0,0,.25); display: flex; flex-direction: column; overflow: hidden; }
.panel[hidden] { display: none; }
header { background: var(--accent); color: var(--on-accent, #fff); padding: 12px 14px; display: flex; align-items: center; justify-content: space-between; }
h2 { font-size: 16px; margin: 0; font-weight: 600; }
.heading { display: flex; align-items: center; gap: 10px; min-width: 0; } .logo { height: 28px; max-width: 96px; object-fit: contain; } .brand { margin: 0; font-size: 12px; }
.close { background: transparent; color: var(--on-accent, #fff); border: 0; font-size: 24px; line-height: 1; cursor: pointer; min-width: 32px; min-height: 32px; }
.log { flex: 1; overflow-y: auto; padding: 12px; background: #f9fafb; }
.messages { list-style: none; margin: 0; padding: 0; }
.bubble { display: block; max-width: 80%; margin: 0 0 8px; padding: 8px 11px; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.them { background: #e5e7eb; color: #111827; border-bottom-left-radius: 4px; }
.me { background: var(--accent); color: var(--on-accent, #fff); margin-left: auto; border-bottom-right-radius: 4px; }
.pending { opacity: .75; }
.who { display: block; font-size: 12px; font-weight: 600; margin-bottom: 2px; }
.greeting { margin-top: 0; }
.typing, .status { margin: 0; padding: 0 14px; min-height: 0; font-size: 13px; color: #374151; }
.typing:not(:empty), .status:not(:empty) { padding: 4px 14px; }
.status { color: #b91c1c; }
.compose { display: flex; gap: 6px; padding: 10px; border-top: 1px solid #e5e7eb; background: #fff; }
.compose input[type=text] { flex: 1; min-width: 0; font: inherit; padding: 8px 10px; border: 1px solid #6b7280; border-radius: 8px; color: #111827; background: #fff; }
.send { font: inherit; font-weight: 600; border: 0; border-radius: 8px; padding: 8px 14px; background: var(--accent); color: var(--on-accent, #fff); cursor: pointer; }
.attach { font: inherit; font-size: 20px; line-height: 1; border: 1px solid #6b7280; background: #fff; color: #111827; border-radius: 8px; min-width: 38px; cursor: pointer; }
.file { display: none; }
.email { padding: 8px 12px; border-top: 1px solid #e5e7eb; display: flex; gap: 6px; align-items: flex-end; font-size: 13px; }
.email[hidden] { display: none; }
.email label { flex: 1; display: flex; flex-direction: column; gap: 4px; }
.email input { font: inherit; padding: 6px 8px; border: 1px solid #6b7280; border-radius: 8px; }
.choices { margin: -2px 0 8px; }
.choices div { display: flex; flex-direction: column; align-items: flex-start; gap: 6px; max-width: 85%; }
.choice { font: inherit; font-size: 14px; text-align: left; padding: 6px 12px; border: 1px solid var(--accent); border-radius: 14px; background: #fff; color: #111827; cursor: pointer; }
.choice:hover { background: #f3f4f6; }
.file-link { font: inherit; background: none; border: 0; padding: 0; color: inherit; text-decoration: underline; cursor: pointer; }
@media (max-width: 480px) {
  .wrap { bottom: 12px; } .wrap.right { right: 12px; } .wrap.left { left: 12px; }
  .wrap.open { left: 8px; right: 8px; }
  .panel { width: 100%; max-width: none; height: calc(100vh - 96px); }
}
`;
