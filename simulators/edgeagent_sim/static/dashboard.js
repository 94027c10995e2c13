// Live dashboard: one snapshot at load, then every change arrives over Server-Sent
// Events (/api/events) and is drawn at once. The controls post to the same JSON API
// the agent's sim backends use, so the agent reads what a developer sets here.
"use strict";

const strip = document.getElementById("strip");
const ledOn = document.getElementById("led-on");
const ledColor = document.getElementById("led-color");
const ledBrightness = document.getElementById("led-brightness-input");
const ledSummary = document.getElementById("led-summary");
const servoArm = document.getElementById("servo-arm");
const servoAngle = document.getElementById("servo-angle");
const servoInput = document.getElementById("servo-angle-input");
const status = document.getElementById("status");

// The colour a pixel shows: its own colour scaled by the strip's brightness.
function shown(hex, on, brightness) {
  if (!on) return "rgb(34, 34, 34)";
  const k = brightness / 100;
  const channel = (i) => Math.round(parseInt(hex.substr(i, 2), 16) * k);
  return `rgb(${channel(1)}, ${channel(3)}, ${channel(5)})`;
}

function drawLed(led) {
  while (strip.children.length < led.pixels.length) {
    const div = document.createElement("div");
    div.className = "pixel";
    div.dataset.index = String(strip.children.length);
    strip.appendChild(div);
  }
  while (strip.children.length > led.pixels.length) strip.lastElementChild.remove();
  led.pixels.forEach((hex, i) => {
    const div = strip.children[i];
    const color = shown(hex, led.on, led.brightness);
    div.style.backgroundColor = color;
    div.style.boxShadow = led.on && led.brightness > 0 ? `0 0 12px ${color}` : "none";
    div.dataset.color = hex;
    div.dataset.lit = String(led.on && led.brightness > 0);
    div.title = `${i}: ${hex}`;
  });
  strip.dataset.on = String(led.on);
  strip.dataset.brightness = String(led.brightness);
  ledSummary.textContent = `${led.on ? "on" : "off"}, brightness ${led.brightness} %`;
  // Do not fight a control the developer is dragging right now.
  if (document.activeElement !== ledOn) ledOn.checked = led.on;
  if (document.activeElement !== ledBrightness) ledBrightness.value = String(led.brightness);
  if (document.activeElement !== ledColor) ledColor.value = led.pixels[0];
}

function drawServo(servo) {
  servoArm.setAttribute("transform", `rotate(${servo.angle} 100 110)`);
  servoArm.dataset.angle = String(servo.angle);
  servoAngle.textContent = String(Math.round(servo.angle * 10) / 10);
  if (document.activeElement !== servoInput) servoInput.value = String(Math.round(servo.angle));
}

function draw(snapshot) {
  drawLed(snapshot.led);
  drawServo(snapshot.servo);
  document.body.dataset.version = String(snapshot.version);
  // The console (console.js) links a change to the tool call that made it.
  document.dispatchEvent(new CustomEvent("devicestate", { detail: snapshot }));
}

// Coalesce posts while one is in flight, so dragging a slider sends the latest value
// instead of queueing hundreds of requests.
function sender(path) {
  let busy = false;
  let pending = null;
  async function send(body) {
    if (busy) { pending = Object.assign(pending || {}, body); return; }
    busy = true;
    try {
      const response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!response.ok) console.warn(path, (await response.json()).error);
    } finally {
      busy = false;
      if (pending) { const next = pending; pending = null; send(next); }
    }
  }
  return send;
}

const sendLed = sender("/api/led");
const sendServo = sender("/api/servo");
ledOn.addEventListener("change", () => sendLed({ on: ledOn.checked }));
ledColor.addEventListener("input", () => sendLed({ color: ledColor.value, on: true }));
ledBrightness.addEventListener("input", () => sendLed({ brightness: Number(ledBrightness.value) }));
servoInput.addEventListener("input", () => sendServo({ angle: Number(servoInput.value) }));

draw(JSON.parse(document.getElementById("initial-state").textContent));

const events = new EventSource("/api/events");
events.addEventListener("state", (event) => draw(JSON.parse(event.data)));
events.addEventListener("open", () => {
  status.textContent = "live";
  status.dataset.connected = "true";
});
events.addEventListener("error", () => {
  status.textContent = "simulator not reachable, retrying…";
  status.dataset.connected = "false";
});
