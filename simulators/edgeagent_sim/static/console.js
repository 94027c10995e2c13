// The console: ask the running daemon, watch every turn's trace, call a tool directly.
// Everything goes through the simulator app (/console/api/...), which talks to the
// daemon's Unix socket as the "dashboard" front end. With no daemon the page shows the
// devices and a banner; the trace stream retries by itself, so the page recovers when
// the daemon starts again.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const banner = $("daemon-banner");
  const conversation = $("conversation");
  const promptBox = $("prompt");
  const askButton = $("ask-button");
  const traceList = $("trace");
  const traceFilter = $("trace-filter");
  const toolSelect = $("call-tool");
  const callFields = $("call-fields");
  const callResult = $("call-result");
  const MAX_TURNS = 100; // turns kept on the page
  const CAUSE_WINDOW_MS = 3000; // a device change this close to a call is that call's
  const FLASH_MS = 6000;

  // --- a session per browser tab ----------------------------------------------------
  function newSessionId() {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    return "tab-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  let session = sessionStorage.getItem("edgeagent-console-session");
  if (!session) {
    session = newSessionId();
    sessionStorage.setItem("edgeagent-console-session", session);
  }
  $("session-id").textContent = session;

  async function post(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  // --- the daemon's state: the banner -------------------------------------------------
  function setDaemon(running, why) {
    document.body.dataset.daemon = running ? "running" : "down";
    banner.hidden = running;
    banner.textContent = running ? "" : `daemon not running: ${why || "no answer"}. ` +
      "The devices still work; the console reconnects when edgeagent starts.";
    askButton.disabled = !running;
    $("call-button").disabled = !running;
  }

  // --- ask ----------------------------------------------------------------------------
  function bubble(kind, text) {
    const div = document.createElement("div");
    div.className = `message ${kind}`;
    div.textContent = text || "";
    conversation.appendChild(div);
    conversation.scrollTop = conversation.scrollHeight;
    return div;
  }

  function showLine(line, answer) {
    if (line.type === "text") {
      answer.dataset.streamed = (answer.dataset.streamed || "") + line.text;
      answer.textContent = answer.dataset.streamed;
    } else if (line.type === "tool_call") {
      answer.before(bubble("call", `→ ${line.name}(${JSON.stringify(line.arguments)})`));
    } else if (line.type === "tool_result") {
      const shown = line.ok ? JSON.stringify(line.result) : `error: ${line.error}`;
      answer.before(bubble(line.ok ? "result" : "result failed", `← ${line.name}: ${shown}`));
    } else if (line.type === "final") {
      answer.textContent = line.text;
      answer.dataset.done = "true";
    } else if (line.type === "error") {
      answer.textContent = `error: ${line.message}`;
      answer.classList.add("failed");
      answer.dataset.done = "true";
    }
    conversation.scrollTop = conversation.scrollHeight;
  }

  async function ask(prompt) {
    bubble("you", prompt);
    const answer = bubble("agent", "…");
    askButton.disabled = true;
    try {
      const response = await post("/console/api/ask", { prompt, session });
      if (!response.ok) {
        const body = await response.json();
        showLine({ type: "error", message: body.error }, answer);
        if (response.status === 503) setDaemon(false, body.error);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffered = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffered.indexOf("\n")) >= 0) {
          const text = buffered.slice(0, cut).trim();
          buffered = buffered.slice(cut + 1);
          if (text) showLine(JSON.parse(text), answer);
        }
      }
    } catch (error) {
      showLine({ type: "error", message: String(error) }, answer);
    } finally {
      askButton.disabled = document.body.dataset.daemon !== "running";
    }
  }

  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const prompt = promptBox.value.trim();
    if (!prompt) return;
    promptBox.value = "";
    ask(prompt);
  });
  promptBox.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("new-conversation").addEventListener("click", async () => {
    await post("/console/api/reset", { session }).catch(() => null);
    conversation.replaceChildren();
    bubble("note", "new conversation");
  });

  // --- the trace ----------------------------------------------------------------------
  const turns = new Map(); // turn number -> its <li>
  const recentCalls = []; // {device, row, at, label}
  let pendingChanges = []; // {device, at}: changes seen before their call's trace line

  const fmt = (s) => (s === null || s === undefined ? "–" : `${Number(s).toFixed(2)} s`);

  function statsText(stats) {
    if (!stats) return "";
    const parts = [`first token ${fmt(stats.first_token_s)}`, `model ${fmt(stats.generate_s)}`,
      `tools ${fmt(stats.tool_s)}`];
    if (stats.prompt_tokens !== null && stats.prompt_tokens !== undefined) {
      parts.push(`${stats.prompt_tokens} prompt tokens`);
    }
    parts.push(`${stats.output_tokens} out`);
    return parts.join(" · ");
  }

  function row(li, kind, text) {
    const div = document.createElement("div");
    div.className = `step ${kind}`;
    div.textContent = text;
    li.querySelector(".steps").appendChild(div);
    return div;
  }

  function turnItem(line) {
    let li = turns.get(line.turn);
    if (li) return li;
    li = document.createElement("li");
    li.className = "turn";
    li.dataset.turn = String(line.turn);
    li.dataset.frontend = line.frontend;
    li.innerHTML = '<div class="head"><span class="when"></span><span class="frontend"></span> ' +
      '<span class="what"></span></div><div class="steps"></div><div class="stats"></div>';
    li.querySelector(".frontend").textContent = line.frontend;
    li.querySelector(".when").textContent = new Date(line.at * 1000).toLocaleTimeString();
    li.hidden = Boolean(traceFilter.value) && traceFilter.value !== line.frontend;
    traceList.prepend(li);
    turns.set(line.turn, li);
    while (turns.size > MAX_TURNS) {
      const oldest = Math.min(...turns.keys());
      turns.get(oldest).remove();
      turns.delete(oldest);
    }
    return li;
  }

  function traced(line, live) {
    const event = line.event;
    if (event.type === "dropped") {
      const note = document.createElement("li");
      note.className = "turn dropped";
      note.textContent = `${event.count} trace lines lost (this page read too slowly)`;
      traceList.prepend(note);
      return;
    }
    const li = turnItem(line);
    if (event.type === "start") {
      const what = event.tool !== undefined
        ? `call ${event.tool}(${JSON.stringify(event.arguments)})`
        : `“${event.prompt}”`;
      const about = [event.id !== null ? `id ${event.id}` : "", event.session
        ? `session ${event.session}` : ""].filter(Boolean).join(", ");
      li.querySelector(".what").textContent = `#${line.turn} ${what}` + (about ? ` (${about})` : "");
    } else if (event.type === "tool_call") {
      const label = `→ ${event.name}(${JSON.stringify(event.arguments)})`;
      const div = row(li, "call", label);
      div.dataset.tool = event.name;
      if (live) noteCall(event.name, div, `${label.slice(2)} · turn ${line.turn}`);
    } else if (event.type === "tool_result") {
      const shown = event.ok ? JSON.stringify(event.result) : `error: ${event.error}`;
      row(li, event.ok ? "result" : "result failed", `← ${event.name}: ${shown}`);
    } else if (event.type === "final" || event.type === "error") {
      const text = event.type === "final" ? event.text : `error: ${event.message}`;
      row(li, event.type === "final" ? "answer" : "answer failed", text);
      li.querySelector(".stats").textContent = statsText(event.stats);
      li.dataset.done = "true";
    }
  }

  traceFilter.addEventListener("change", () => {
    for (const li of turns.values()) {
      li.hidden = Boolean(traceFilter.value) && traceFilter.value !== li.dataset.frontend;
    }
  });

  // --- a device change and the call that made it --------------------------------------
  const toolDevice = new Map(); // tool name -> "led" | "servo" (from its plugin)

  function deviceOf(toolName) {
    if (toolDevice.has(toolName)) return toolDevice.get(toolName);
    return ["led", "servo"].find((d) => toolName.startsWith(d)) || null;
  }

  function flash(device, callRow, label) {
    const section = $(`device-${device}`);
    if (!section) return;
    section.classList.add("caused");
    section.dataset.causedBy = label;
    callRow.classList.add("caused");
    setTimeout(() => {
      section.classList.remove("caused");
      callRow.classList.remove("caused");
    }, FLASH_MS);
  }

  function noteCall(toolName, callRow, label) {
    const device = deviceOf(toolName);
    if (!device) return;
    const now = Date.now();
    const waiting = pendingChanges.find((c) => c.device === device && now - c.at < CAUSE_WINDOW_MS);
    pendingChanges = pendingChanges.filter((c) => c !== waiting && now - c.at < CAUSE_WINDOW_MS);
    if (waiting) flash(device, callRow, label);
    else recentCalls.push({ device, row: callRow, at: now, label });
    while (recentCalls.length && now - recentCalls[0].at > CAUSE_WINDOW_MS) recentCalls.shift();
  }

  let lastState = null;
  document.addEventListener("devicestate", (event) => {
    const snapshot = event.detail;
    const before = lastState;
    lastState = snapshot;
    if (!before) return;
    const now = Date.now();
    for (const device of ["led", "servo"]) {
      if (JSON.stringify(before[device]) === JSON.stringify(snapshot[device])) continue;
      const call = recentCalls.filter((c) => c.device === device && now - c.at < CAUSE_WINDOW_MS)
        .pop();
      if (call) {
        recentCalls.splice(recentCalls.indexOf(call), 1);
        flash(device, call.row, call.label);
      } else {
        pendingChanges.push({ device, at: now });
      }
    }
  });

  // --- tools and the call form -------------------------------------------------------
  let tools = [];

  function field(name, schema, required) {
    const label = document.createElement("label");
    label.textContent = `${name}${required ? " *" : ""} `;
    let input;
    if (Array.isArray(schema.enum) || schema.type === "boolean") {
      input = document.createElement("select");
      const options = schema.type === "boolean" ? [true, false] : schema.enum;
      for (const value of ["", ...options]) {
        const option = document.createElement("option");
        option.value = value === "" ? "" : JSON.stringify(value);
        option.textContent = value === "" ? "—" : String(value);
        input.appendChild(option);
      }
    } else {
      input = document.createElement("input");
      const numeric = schema.type === "integer" || schema.type === "number";
      input.type = numeric ? "number" : "text";
      if (numeric && schema.minimum !== undefined) input.min = schema.minimum;
      if (numeric && schema.maximum !== undefined) input.max = schema.maximum;
      if (schema.type === "integer") input.step = "1";
      input.dataset.kind = numeric ? "number" : schema.type === "string" ? "string" : "json";
      if (schema.default !== undefined && schema.default !== null) {
        input.placeholder = String(schema.default);
      }
    }
    input.name = name;
    input.title = schema.description || "";
    label.appendChild(input);
    return label;
  }

  function showForm() {
    const tool = tools.find((t) => t.name === toolSelect.value);
    callFields.replaceChildren();
    $("call-description").textContent = tool ? `${tool.kind} · ${tool.description}` : "";
    if (!tool) return;
    const params = tool.parameters || {};
    const required = new Set(params.required || []);
    for (const [name, schema] of Object.entries(params.properties || {})) {
      callFields.appendChild(field(name, schema, required.has(name)));
    }
  }

  function argumentsOf() {
    const args = {};
    for (const input of callFields.querySelectorAll("input, select")) {
      if (input.value === "") continue;
      if (input.tagName === "SELECT" || input.dataset.kind === "json") {
        args[input.name] = JSON.parse(input.value);
      } else if (input.dataset.kind === "number") {
        args[input.name] = Number(input.value);
      } else {
        args[input.name] = input.value;
      }
    }
    return args;
  }

  async function loadTools() {
    const response = await fetch("/console/api/tools").catch(() => null);
    if (!response || !response.ok) return;
    tools = (await response.json()).tools;
    const chosen = toolSelect.value;
    toolSelect.replaceChildren(...tools.map((t) => new Option(t.name, t.name)));
    if (tools.some((t) => t.name === chosen)) toolSelect.value = chosen;
    const list = $("tools");
    list.replaceChildren();
    for (const tool of tools) {
      if (tool.plugin && ["led", "servo"].includes(tool.plugin)) toolDevice.set(tool.name, tool.plugin);
      const li = document.createElement("li");
      li.dataset.tool = tool.name;
      li.innerHTML = '<details><summary><code class="name"></code> <span class="kind"></span> ' +
        '<span class="about"></span></summary><pre class="schema"></pre></details>';
      li.querySelector(".name").textContent = tool.name;
      li.querySelector(".kind").textContent = tool.kind;
      li.querySelector(".kind").dataset.kind = tool.kind;
      li.querySelector(".about").textContent = tool.description;
      li.querySelector(".schema").textContent = JSON.stringify(tool.parameters, null, 2);
      list.appendChild(li);
    }
    showForm();
  }

  toolSelect.addEventListener("change", showForm);
  $("call-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    let args;
    try {
      args = argumentsOf();
    } catch (error) {
      callResult.textContent = `not JSON: ${error.message}`;
      return;
    }
    callResult.textContent = "…";
    const response = await post("/console/api/call", { tool: toolSelect.value, arguments: args });
    const body = await response.json();
    callResult.dataset.ok = String(Boolean(body.ok));
    callResult.textContent = body.type === "tool_result"
      ? (body.ok ? JSON.stringify(body.result, null, 2) : `error: ${body.error}`)
      : `error: ${body.error || body.message}`;
  });

  // --- the live trace stream: also how the page learns the daemon's state -----------
  const trace = new EventSource("/console/api/trace");
  let historyLeft = 0;
  trace.addEventListener("daemon", (event) => {
    const state = JSON.parse(event.data);
    setDaemon(state.running, state.error);
    if (state.running) loadTools();
  });
  trace.addEventListener("tracing", (event) => {
    // A new stream (first, or after a restart of the daemon): its history replaces ours.
    historyLeft = JSON.parse(event.data).history;
    turns.clear();
    traceList.replaceChildren();
  });
  trace.addEventListener("trace", (event) => {
    traced(JSON.parse(event.data), historyLeft === 0);
    if (historyLeft > 0) historyLeft -= 1;
  });
  trace.addEventListener("error", () => {
    if (document.body.dataset.daemon !== "down") setDaemon(false, "the dashboard lost its stream");
  });
  document.body.dataset.daemon = "unknown";
})();
