// The node board: loads the nodes and the user, then follows the store's commits over /events (SSE) and applies
// each one to the DOM. The stream resumes from the last applied sequence when it reconnects.
'use strict';

const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get('token');
const userId = fragment.get('user') || 'me';

const board = document.getElementById('board');
const connection = document.getElementById('connection');
const nodeElements = new Map();   // node id -> element; element.nodeData holds the node's columns
let selectedId = null;
let source = null;
let lastSeq = 0;
let refetching = false;
let resyncPending = false;          // a resync came while a refetch ran: refetch again
let heldCommits = [];              // commits that arrived during a refetch

// MARK: - HTTP

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token && method !== 'GET') headers['Authorization'] = 'Bearer ' + token;
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    let message = 'HTTP ' + response.status;
    try { message = (await response.json()).error.message; } catch (_) { /* not JSON */ }
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return response.status === 204 ? null : response.json();
}

function showError(text) {
  const element = document.getElementById('error');
  element.textContent = text || '';
  element.hidden = !text;
}

async function attempt(action) {
  try {
    showError('');
    return await action();
  } catch (error) {
    showError(error.message);
    return null;
  }
}

// MARK: - Nodes in the DOM

function renderNode(node) {
  let element = nodeElements.get(node.id);
  if (!element) {
    element = document.createElement('div');
    element.className = 'node';
    element.dataset.id = String(node.id);
    const label = document.createElement('span');
    label.className = 'node-name';
    element.appendChild(label);
    element.nodeData = {};
    makeDraggable(element);
    board.appendChild(element);
    nodeElements.set(node.id, element);
  }
  const data = Object.assign(element.nodeData, node);
  if (!element.classList.contains('dragging')) {
    element.style.left = data.x + 'px';
    element.style.top = data.y + 'px';
  }
  element.style.width = data.width + 'px';
  element.style.height = data.height + 'px';
  element.style.background = data.color;
  element.querySelector('.node-name').textContent = data.name;
  element.title = data.name;
  if (selectedId === data.id) showSelection();
}

function removeNode(id) {
  const element = nodeElements.get(id);
  if (element) element.remove();
  nodeElements.delete(id);
  if (selectedId === id) select(null);
}

function select(id) {
  for (const element of board.querySelectorAll('.node.selected')) element.classList.remove('selected');
  selectedId = id;
  const element = id === null ? null : nodeElements.get(id);
  if (element) element.classList.add('selected');
  else selectedId = null;
  showSelection();
}

function showSelection() {
  const panel = document.getElementById('selection');
  const element = selectedId === null ? null : nodeElements.get(selectedId);
  panel.hidden = !element;
  const input = document.getElementById('node-name-input');
  if (element && document.activeElement !== input) input.value = element.nodeData.name;
}

function makeDraggable(element) {
  let start = null;
  element.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    start = {
      pointerX: event.clientX, pointerY: event.clientY,
      x: element.nodeData.x, y: element.nodeData.y, moved: false,
    };
    element.setPointerCapture(event.pointerId);
  });
  element.addEventListener('pointermove', (event) => {
    if (!start) return;
    const dx = event.clientX - start.pointerX;
    const dy = event.clientY - start.pointerY;
    if (!start.moved && Math.abs(dx) + Math.abs(dy) < 3) return;
    start.moved = true;
    element.classList.add('dragging');
    element.style.left = (start.x + dx) + 'px';
    element.style.top = (start.y + dy) + 'px';
  });
  const finish = async (event) => {
    if (!start) return;
    const drag = start;
    start = null;
    const id = element.nodeData.id;
    select(id);
    if (!drag.moved) return;
    const x = Math.max(0, Math.round(drag.x + event.clientX - drag.pointerX));
    const y = Math.max(0, Math.round(drag.y + event.clientY - drag.pointerY));
    element.classList.remove('dragging');
    Object.assign(element.nodeData, { x, y });
    const saved = await attempt(() => api('PATCH', '/api/nodes/' + id, { x, y }));
    renderNode(saved || { id, x: drag.x, y: drag.y });   // a refused move goes back
  };
  element.addEventListener('pointerup', finish);
  element.addEventListener('pointercancel', () => {
    if (!start) return;
    start = null;
    element.classList.remove('dragging');
    renderNode({ id: element.nodeData.id });
  });
}

// MARK: - The user

function showUser(user) {
  const name = document.getElementById('user-name');
  name.textContent = user ? user.name : '(no name yet)';
  name.classList.toggle('placeholder', !user);
}

async function loadUser() {
  try {
    showUser(await api('GET', '/api/users/' + encodeURIComponent(userId)));
  } catch (error) {
    if (error.status === 404) showUser(null);
    else throw error;
  }
}

// MARK: - Loading and the live stream

function setSeq(seq) {
  lastSeq = seq;
  board.dataset.seq = String(seq);
  document.getElementById('seq').textContent = String(seq);
}

// Loads every page of nodes and the user; returns the sequence of the first page's snapshot. Replaying the commits
// after it is safe: applying a change twice gives the same DOM.
async function loadAll() {
  let snapshotSeq = null;
  const seen = new Set();
  let after = null;
  for (;;) {
    const page = await api('GET', '/api/nodes?limit=1000' + (after === null ? '' : '&after=' + after));
    if (snapshotSeq === null) snapshotSeq = page.seq;
    for (const node of page.nodes) {
      renderNode(node);
      seen.add(node.id);
    }
    if (page.next === null) break;
    after = page.next;
  }
  for (const id of [...nodeElements.keys()]) if (!seen.has(id)) removeNode(id);
  await loadUser();
  board.dataset.loaded = 'true';
  return snapshotSeq;
}

function applyChange(change) {
  if (change.table === 'nodes') {
    if (change.op === 'delete') removeNode(change.id);
    else if (nodeElements.has(change.id) || change.op === 'insert') renderNode(Object.assign({ id: change.id }, change.changes));
    else api('GET', '/api/nodes/' + change.id).then(renderNode, () => {});   // gone since: its delete follows
  } else if (change.table === 'user_info' && change.id === userId) {
    if (change.op === 'delete') showUser(null);
    else attempt(loadUser);
  }
}

function applyCommit(commit) {
  if (commit.seq <= lastSeq) return;   // already in what the page shows (a refetch's snapshot)
  for (const change of commit.changes || []) applyChange(change);
  const isLastPiece = !commit.piece || commit.piece[0] === commit.piece[1] - 1;
  if (isLastPiece && commit.seq > lastSeq) setSeq(commit.seq);
}

// A resync while a refetch runs asks for another one (its snapshot may predate what the resync covers); a failed
// refetch keeps the commits it held and tries again, since the stream will not send them again.
async function refetch() {
  if (refetching) {
    resyncPending = true;
    return;
  }
  refetching = true;
  heldCommits = [];
  try {
    do {
      resyncPending = false;
      try {
        const snapshotSeq = await loadAll();
        setSeq(Math.max(lastSeq, snapshotSeq));
        const held = heldCommits;
        heldCommits = [];
        for (const commit of held) applyCommit(commit);
      } catch (error) {
        showError('refetch failed: ' + error.message + '; retrying');
        resyncPending = true;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    } while (resyncPending);
  } finally {
    refetching = false;
  }
}

function setConnection(state) {
  connection.dataset.state = state;
  connection.textContent = state;
}

function connect() {
  source = new EventSource('/events?since=' + lastSeq);
  source.onopen = () => setConnection('live');
  source.addEventListener('commit', (event) => {
    const commit = JSON.parse(event.data);
    if (refetching) heldCommits.push(commit);
    else applyCommit(commit);
  });
  source.addEventListener('resync', () => refetch());
  source.onerror = () => {
    setConnection('reconnecting');
    // The browser reconnects by itself (sending Last-Event-ID); once it gave up, start a new stream from lastSeq.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
  };
}

// MARK: - Controls

document.getElementById('new-node').addEventListener('click', () => attempt(async () => {
  const offset = (nodeElements.size * 30) % 300;
  const node = await api('POST', '/api/nodes', { name: 'Node ' + (nodeElements.size + 1), x: 40 + offset, y: 40 + offset });
  renderNode(node);
  select(node.id);
}));

document.getElementById('rename-node').addEventListener('click', () => attempt(async () => {
  if (selectedId === null) return;
  const name = document.getElementById('node-name-input').value.trim();
  if (name) renderNode(await api('PATCH', '/api/nodes/' + selectedId, { name }));
}));

document.getElementById('delete-node').addEventListener('click', () => attempt(async () => {
  if (selectedId === null) return;
  const id = selectedId;
  await api('DELETE', '/api/nodes/' + id);
  removeNode(id);
}));

document.getElementById('rename-user').addEventListener('click', () => attempt(async () => {
  const input = document.getElementById('user-name-input');
  const name = input.value.trim();
  if (!name) return;
  showUser(await api('PUT', '/api/users/' + encodeURIComponent(userId), { name }));
  input.value = '';
}));

board.addEventListener('pointerdown', (event) => { if (event.target === board) select(null); });

// MARK: - Start

(async () => {
  try {
    setSeq(await loadAll());
  } catch (error) {
    showError('loading failed: ' + error.message);
  }
  connect();
})();
