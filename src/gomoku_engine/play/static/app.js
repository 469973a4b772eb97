// The page of `gomoku-engine web`: draws the board on a canvas and talks to the JSON API
// (/api/..., described in docs/play.md). No library, no build step; works offline.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const canvas = $("board");
  const ctx = canvas.getContext("2d");
  const statusLine = $("status");
  const message = $("message");
  const analysisLine = $("analysis");
  const showAnalysis = $("show-analysis");
  const note = $("note");
  const analysisView = $("analysis-view");
  const showPv = $("show-pv");
  const STORE_KEY = "gomoku-game-id"; // per tab: sessionStorage, so tabs never mix games
  const SVG = "http://www.w3.org/2000/svg";
  // the graph's plot area in its viewBox (300 wide): labels on the left
  const PLOT = { left: 30, right: 296, top: 6, bottom: 96, width: 300 };

  let game = null; // the API's view of the current game
  let busy = false; // a request is on its way (the engine may be thinking)
  let pending = null; // the person's move shown while the engine answers
  let hint = null; // {x, y} of the last hint
  let viewPly = null; // the move shown on the board (null: the game now)
  let drawnPv = []; // the best line drawn on the board ({x, y, colour})
  let geometry = { cell: 30, origin: 33, size: 15 };
  const MARGIN = 1.1; // cells between the outer lines and the canvas's edge (coordinates)

  // --- API ------------------------------------------------------------------------------
  async function api(method, path, body) {
    const init = { method, headers: {} };
    if (method === "POST") {
      // JSON only: the server refuses other bodies (a page of another site cannot send
      // this type without a preflight, which the server refuses)
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body || {});
    }
    const response = await fetch("/api/" + path, init);
    let data = null;
    try {
      data = await response.json();
    } catch (err) {
      data = { error: "unreadable answer (" + response.status + ")" };
    }
    if (!response.ok) {
      const error = new Error(data.error || "error " + response.status);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  // --- coordinates ----------------------------------------------------------------------
  const letter = (x) => String.fromCharCode(97 + x);
  const pointName = (p) => letter(p.x) + (p.y + 1);

  function pixel(x, y) {
    // CSS pixels of point (x, y) from the canvas's top-left corner
    return { left: geometry.origin + x * geometry.cell, top: geometry.origin + y * geometry.cell };
  }

  function pointAt(left, top) {
    const x = Math.round((left - geometry.origin) / geometry.cell);
    const y = Math.round((top - geometry.origin) / geometry.cell);
    if (x < 0 || y < 0 || x >= geometry.size || y >= geometry.size) return null;
    const p = pixel(x, y);
    if (Math.hypot(p.left - left, p.top - top) > geometry.cell * 0.6) return null;
    return { x, y };
  }

  // --- drawing --------------------------------------------------------------------------
  function fitCanvas() {
    const size = game ? game.size : Number($("size").value) || 15;
    const header = document.querySelector("header").offsetHeight;
    const wide = window.innerWidth > 720;
    const byWidth = window.innerWidth - (wide ? 300 : 16);
    const byHeight = window.innerHeight - header - 24;
    const css = Math.max(220, Math.min(wide ? Math.min(byWidth, byHeight) : byWidth, 900));
    const ratio = window.devicePixelRatio || 1;
    canvas.style.width = css + "px";
    canvas.style.height = css + "px";
    canvas.width = Math.round(css * ratio);
    canvas.height = Math.round(css * ratio);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const cell = css / (size - 1 + 2 * MARGIN);
    geometry = { cell, origin: cell * MARGIN, size, css };
  }

  function starPoints(n) {
    if (n < 9) return [];
    const edge = n >= 13 ? 3 : 2;
    const far = n - 1 - edge;
    const points = [[edge, edge], [far, edge], [edge, far], [far, far]];
    if (n % 2 === 1) points.push([(n - 1) / 2, (n - 1) / 2]);
    return points;
  }

  function draw() {
    fitCanvas();
    const { cell, origin, size, css } = geometry;
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, css, css);
    // lines
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let i = 0; i < size; i++) {
      const at = Math.round(origin + i * cell) + 0.5;
      ctx.moveTo(origin, at);
      ctx.lineTo(origin + (size - 1) * cell, at);
      ctx.moveTo(at, origin);
      ctx.lineTo(at, origin + (size - 1) * cell);
    }
    ctx.stroke();
    ctx.fillStyle = "#000";
    for (const [x, y] of starPoints(size)) {
      const p = pixel(x, y);
      ctx.beginPath();
      ctx.arc(p.left + 0.5, p.top + 0.5, Math.max(2, cell * 0.09), 0, 2 * Math.PI);
      ctx.fill();
    }
    // coordinates on the four edges
    ctx.fillStyle = "#444";
    ctx.font = Math.max(9, Math.round(cell * 0.34)) + "px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let i = 0; i < size; i++) {
      const at = origin + i * cell;
      const edge = cell * 0.36;
      ctx.fillText(letter(i), at, edge);
      ctx.fillText(letter(i), at, css - edge);
      ctx.fillText(String(i + 1), edge, at);
      ctx.fillText(String(i + 1), css - edge, at);
    }
    if (!game) return;
    // renju fouls for a person playing black: a red cross (in the game now only)
    if (viewed() === game.moves.length) {
      ctx.strokeStyle = "#d92d20";
      ctx.lineWidth = Math.max(1.5, cell * 0.07);
      for (const f of game.fouls) {
        const p = pixel(f.x, f.y);
        const r = cell * 0.2;
        ctx.beginPath();
        ctx.moveTo(p.left - r, p.top - r);
        ctx.lineTo(p.left + r, p.top + r);
        ctx.moveTo(p.left + r, p.top - r);
        ctx.lineTo(p.left - r, p.top + r);
        ctx.stroke();
      }
    }
    const shown = viewed();
    const stones = game.moves.slice(0, shown);
    if (pending) stones.push(pending);
    for (const s of stones) drawStone(s.x, s.y, s.colour);
    // the last move: a red dot
    const last = pending || stones[stones.length - 1];
    if (last) {
      const p = pixel(last.x, last.y);
      ctx.fillStyle = "#e5322d";
      ctx.beginPath();
      ctx.arc(p.left, p.top, cell * 0.12, 0, 2 * Math.PI);
      ctx.fill();
    }
    // the best line: numbered see-through stones
    drawnPv = showPv.checked && showAnalysis.checked && !pending ? bestLine(shown) : [];
    drawnPv.forEach((s, i) => {
      const p = pixel(s.x, s.y);
      ctx.globalAlpha = 0.45;
      drawStone(s.x, s.y, s.colour);
      ctx.globalAlpha = 1;
      ctx.fillStyle = s.colour === "black" ? "#fff" : "#000";
      ctx.font = "bold " + Math.round(cell * 0.42) + "px system-ui, sans-serif";
      ctx.fillText(String(i + 1), p.left, p.top + 1);
    });
    if (shown < game.moves.length) return; // a past position: no result marks
    // the winning five: a red band through the stones and a ring around each
    if (game.winning_line.length) {
      const line = game.winning_line;
      const a = pixel(line[0].x, line[0].y);
      const b = pixel(line[line.length - 1].x, line[line.length - 1].y);
      ctx.strokeStyle = "rgba(229, 50, 45, 0.85)";
      ctx.lineWidth = Math.max(3, cell * 0.16);
      ctx.lineCap = "round";
      ctx.beginPath();
      ctx.moveTo(a.left, a.top);
      ctx.lineTo(b.left, b.top);
      ctx.stroke();
      ctx.lineWidth = Math.max(2, cell * 0.08);
      for (const s of line) {
        const p = pixel(s.x, s.y);
        ctx.beginPath();
        ctx.arc(p.left, p.top, cell * 0.47, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
    // a hint: a dashed blue circle
    if (hint) {
      const p = pixel(hint.x, hint.y);
      ctx.strokeStyle = "#1570ef";
      ctx.lineWidth = Math.max(2, cell * 0.08);
      ctx.setLineDash([cell * 0.12, cell * 0.08]);
      ctx.beginPath();
      ctx.arc(p.left, p.top, cell * 0.42, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  function drawStone(x, y, colour) {
    const { cell } = geometry;
    const p = pixel(x, y);
    ctx.beginPath();
    ctx.arc(p.left, p.top, cell * 0.44, 0, 2 * Math.PI);
    ctx.fillStyle = colour === "black" ? "#000" : "#fff";
    ctx.fill();
    ctx.strokeStyle = "#000";
    ctx.lineWidth = Math.max(1, cell * 0.05);
    ctx.stroke();
  }

  // --- analysis -------------------------------------------------------------------------
  function viewed() {
    // the number of stones shown: the viewed move, or all of them
    if (!game) return 0;
    return viewPly === null ? game.moves.length : Math.min(viewPly, game.moves.length);
  }

  function evaluationAt(ply) {
    return game ? game.evaluations.find((e) => e.ply === ply) || null : null;
  }

  function bestLine(ply) {
    // the engine's principal variation from the position after `ply` stones
    const e = evaluationAt(ply);
    if (!e) return [];
    const taken = new Set(game.moves.slice(0, ply).map((m) => m.x + "," + m.y));
    let colour = e.side;
    const line = [];
    for (const p of e.pv) {
      if (taken.has(p.x + "," + p.y)) break;
      taken.add(p.x + "," + p.y);
      line.push({ x: p.x, y: p.y, colour });
      colour = colour === "black" ? "white" : "black";
    }
    return line;
  }

  function drawGraph() {
    // black's win rate (the engine's evaluations through its sigmoid) after each move
    const svg = $("graph");
    svg.replaceChildren();
    const n = Math.max(game.moves.length, 1);
    const { left, right, top, bottom } = PLOT;
    const X = (ply) => left + (right - left) * ply / n;
    const Y = (rate) => bottom - (bottom - top) * rate;
    const add = (tag, attrs, text) => {
      const el = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      if (text) el.textContent = text;
      svg.appendChild(el);
      return el;
    };
    add("line", { x1: left, x2: right, y1: Y(0.5), y2: Y(0.5), class: "mid" });
    add("text", { x: 0, y: Y(1) + 6 }, "B");
    add("text", { x: 0, y: Y(0) }, "W");
    add("text", { x: 0, y: Y(0.5) + 3 }, "50%");
    const points = game.evaluations.map((e) => [X(e.ply), Y(e.black_win_rate), e]);
    if (points.length > 1) {
      add("polyline", { class: "line", points: points.map((p) => p[0] + "," + p[1]).join(" ") });
    }
    for (const [x, y, e] of points) {
      add("circle", { cx: x, cy: y, r: 2.5, class: "dot", "data-ply": e.ply }, null)
        .appendChild(document.createElementNS(SVG, "title")).textContent =
          "after move " + e.ply + ": black " + Math.round(e.black_win_rate * 100) + "%";
    }
    add("line", { x1: X(viewed()), x2: X(viewed()), y1: top, y2: bottom, class: "now" });
    add("text", { x: right - 40, y: 108 }, "move " + game.moves.length);
  }

  function showAnalysisView() {
    const open = showAnalysis.checked && game !== null;
    analysisView.hidden = !open;
    if (!open) return;
    drawGraph();
    const shown = viewed();
    $("ply").textContent = "move " + shown + " of " + game.moves.length;
    $("first").disabled = $("prev").disabled = busy || shown === 0;
    $("next").disabled = $("last").disabled = busy || shown === game.moves.length;
    $("takeback").disabled = busy || shown === game.moves.length;
    $("evaluate").disabled = busy;
    const e = evaluationAt(shown);
    $("pv").textContent = e
      ? "after move " + shown + ": " + e.side + " to move, score " + e.score + ", black " +
        Math.round(e.black_win_rate * 100) + "%, best line " + (e.pv_text || "-")
      : "after move " + shown + ": not evaluated (press Evaluate)";
    $("sgf").href = "/api/games/" + game.id + "/sgf";
    $("psq").href = "/api/games/" + game.id + "/psq";
  }

  function goTo(ply) {
    if (!game || busy) return;
    viewPly = ply >= game.moves.length ? null : Math.max(0, ply);
    show();
  }

  // --- text -----------------------------------------------------------------------------
  function show() {
    draw();
    const $undo = $("undo");
    const $hint = $("hint");
    statusLine.className = "";
    if (!game) {
      $undo.disabled = $hint.disabled = true;
      statusLine.textContent = busy ? "Starting a game…" : "Choose the settings and press \"New game\".";
      analysisView.hidden = true;
      analysisLine.hidden = true;
      $("moves").replaceChildren();
      return;
    }
    const mine = game.moves.some((m) => m.colour === game.human);
    $undo.disabled = busy || !mine;
    $hint.disabled = busy || game.result !== null || game.to_move !== game.human;
    if (busy) {
      statusLine.textContent = "The engine is thinking…";
      statusLine.className = "thinking";
    } else if (game.result === "draw") {
      statusLine.textContent = "Draw: the board is full.";
    } else if (game.result === game.human) {
      statusLine.textContent = "You win: five in a row!";
      statusLine.className = "won";
    } else if (game.result) {
      statusLine.textContent = "The engine wins (" + game.result + ").";
      statusLine.className = "lost";
    } else if (viewed() < game.moves.length) {
      statusLine.textContent = "Move " + viewed() + " of " + game.moves.length +
        " shown: \"Take back to here\" plays on from it.";
    } else {
      statusLine.textContent = "Your move (" + game.human + ")" +
        (game.rule === "renju" && game.human === "black" ? ": red crosses are fouls" : "");
    }
    const a = game.analysis;
    analysisLine.hidden = !(showAnalysis.checked && a);
    if (a) {
      analysisLine.textContent = "engine (" + a.side + "): score " + a.score +
        " · win rate " + Math.round(a.win_rate * 100) + "% · depth " + a.depth +
        " · " + a.nodes + " nodes · " + a.time_ms + " ms · pv " + (a.pv_text || "-");
    }
    const list = $("moves");
    list.replaceChildren();
    game.moves.forEach((m, i) => {
      const item = document.createElement("span");
      item.textContent = (i + 1) + "." + pointName(m);
      item.dataset.ply = String(i + 1);
      item.title = "show the board after this move";
      if (i + 1 === viewed() && viewPly !== null) item.className = "viewed";
      list.appendChild(item);
      list.appendChild(document.createTextNode(" "));
    });
    showAnalysisView();
  }

  function showSettings() {
    // the menus show the settings of the game on the board (after a reload too)
    $("colour").value = game.human;
    $("level").value = String(game.level);
    $("rule").value = game.rule;
    $("opening").value = game.opening;
    if (![...$("size").options].some((o) => o.value === String(game.size))) {
      const option = document.createElement("option");
      option.value = String(game.size);
      option.textContent = game.size + "×" + game.size;
      $("size").appendChild(option);
    }
    $("size").value = String(game.size);
  }

  function say(text) {
    // a refusal or an error (red)
    message.textContent = text || "";
    if (text) note.textContent = "";
  }

  function tell(text) {
    // information (blue): a hint, a loaded game
    note.textContent = text || "";
  }

  function setGame(next) {
    // the game on the board; its id in the tab and in the address, so a link resumes it
    game = next;
    viewPly = null;
    if (game) {
      sessionStorage.setItem(STORE_KEY, game.id);
      history.replaceState(null, "", "?game=" + encodeURIComponent(game.id));
    } else {
      sessionStorage.removeItem(STORE_KEY);
      history.replaceState(null, "", location.pathname);
    }
  }

  // --- actions --------------------------------------------------------------------------
  async function run(action) {
    if (busy) return;
    busy = true;
    say("");
    tell("");
    show();
    try {
      await action();
    } catch (err) {
      if (err.status === 404 && game) {
        say("This game is no longer on the server (" + err.message + "). Start a new one.");
        setGame(null);
      } else {
        say(err.message);
      }
    } finally {
      busy = false;
      pending = null;
      show();
    }
  }

  function newGame(event) {
    if (event) event.preventDefault();
    const body = Object.assign(settings(), { size: Number($("size").value) });
    run(async () => {
      hint = null;
      setGame(null); // the previous game stays on the server (its address resumes it)
      setGame(await api("POST", "games", body));
    });
  }

  function settings() {
    return {
      human: $("colour").value,
      level: Number($("level").value),
      rule: $("rule").value,
      opening: $("opening").value,
    };
  }

  function loadPosition() {
    const text = $("position").value;
    const body = Object.assign(settings(), { position: text });
    if (!/^\s*(\(|Piskvorky)/.test(text)) body.size = Number($("size").value);
    run(async () => {
      hint = null;
      const loaded = await api("POST", "games", body);
      setGame(loaded);
      showSettings();
      tell("Loaded " + loaded.moves.length + " moves.");
    });
  }

  function takeBack() {
    const ply = viewed();
    run(async () => {
      hint = null;
      setGame(await api("POST", "games/" + game.id + "/takeback", { ply }));
    });
  }

  function evaluate() {
    const ply = viewed();
    const keep = viewPly;
    run(async () => {
      game = await api("POST", "games/" + game.id + "/evaluate", { ply });
      viewPly = keep;
    });
  }

  function onClick(event) {
    if (!game || busy) return;
    if (viewed() < game.moves.length) {
      say("Move " + viewed() + " is shown: press \"Take back to here\" to play from it, " +
        "or >| for the game now.");
      return;
    }
    if (game.result !== null || game.to_move !== game.human) return;
    const rect = canvas.getBoundingClientRect();
    const p = pointAt(event.clientX - rect.left, event.clientY - rect.top);
    if (!p) return;
    if (game.moves.some((m) => m.x === p.x && m.y === p.y)) {
      say(pointName(p) + " is occupied.");
      return;
    }
    if (game.fouls.some((f) => f.x === p.x && f.y === p.y)) {
      say(pointName(p) + " is a foul for black in renju: choose another point.");
      return;
    }
    run(async () => {
      hint = null;
      pending = { x: p.x, y: p.y, colour: game.human };
      game = await api("POST", "games/" + game.id + "/moves", { x: p.x, y: p.y });
    });
  }

  function undo() {
    run(async () => {
      hint = null;
      setGame(await api("POST", "games/" + game.id + "/undo"));
    });
  }

  function askHint() {
    run(async () => {
      const answer = await api("POST", "games/" + game.id + "/hint");
      game = answer;
      hint = answer.hint;
      const a = answer.hint_analysis;
      const forced = /^(win|loss)/.test(a.score) ? ", " + a.score : "";
      tell("Hint: " + pointName(hint) + " (your chances " + Math.round(a.win_rate * 100) +
        "%" + forced + ")");
    });
  }

  async function start() {
    const options = await api("GET", "options");
    const fill = (id, items, value) => {
      const select = $(id);
      for (const item of items) {
        const option = document.createElement("option");
        option.value = item.value;
        option.textContent = item.label;
        option.selected = item.value === String(value);
        select.appendChild(option);
      }
    };
    fill("level", options.levels.map((l) => ({ value: String(l.level), label: l.label })),
      options.defaults.level);
    fill("rule", options.rules.map((r) => ({ value: r, label: r })), options.defaults.rule);
    fill("opening", options.openings.map((o) => ({
      value: o, label: o === "lin" ? "Lin's rule" : "free" })), options.defaults.opening);
    fill("size", options.sizes.map((s) => ({ value: String(s), label: s + "×" + s })),
      options.defaults.size);
    showAnalysis.checked = localStorage.getItem("gomoku-analysis") === "1";
    const fromUrl = new URLSearchParams(location.search).get("game");
    const id = fromUrl || sessionStorage.getItem(STORE_KEY);
    if (id) {
      try {
        setGame(await api("GET", "games/" + encodeURIComponent(id)));
        showSettings();
      } catch (err) {
        setGame(null);
        if (err.status === 404) say("Game " + id + " is not on the server: " + err.message);
        else throw err;
      }
    }
    show();
  }

  $("settings").addEventListener("submit", newGame);
  canvas.addEventListener("click", onClick);
  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", askHint);
  $("size").addEventListener("change", () => { if (!game) draw(); });
  showAnalysis.addEventListener("change", () => {
    localStorage.setItem("gomoku-analysis", showAnalysis.checked ? "1" : "0");
    show();
  });
  window.addEventListener("resize", draw);
  showPv.addEventListener("change", () => show());
  $("first").addEventListener("click", () => goTo(0));
  $("prev").addEventListener("click", () => goTo(viewed() - 1));
  $("next").addEventListener("click", () => goTo(viewed() + 1));
  $("last").addEventListener("click", () => goTo(Infinity));
  $("takeback").addEventListener("click", takeBack);
  $("evaluate").addEventListener("click", evaluate);
  $("load").addEventListener("click", loadPosition);
  $("moves").addEventListener("click", (event) => {
    const ply = event.target.dataset && event.target.dataset.ply;
    if (ply) goTo(Number(ply));
  });
  $("graph").addEventListener("click", (event) => {
    if (!game) return;
    const box = $("graph").getBoundingClientRect();
    const at = (event.clientX - box.left) / box.width * PLOT.width;
    goTo(Math.round((at - PLOT.left) / (PLOT.right - PLOT.left) * Math.max(game.moves.length, 1)));
  });

  // for tests and scripts: where a point is drawn, and the state the page holds
  window.gomoku = {
    pixel,
    state: () => game,
    busy: () => busy,
    shown: () => ({ ply: viewed(), pv: drawnPv }),
    ready: start().catch((err) => say("Cannot reach the server: " + err.message)),
  };
})();
