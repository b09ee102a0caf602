// The console's calls to tsserve's public JSON API, with the bearer token the operator
// types in when the server asks for one (401). The token lives in sessionStorage: this tab
// only, gone when it closes.

import { byId } from "./dom.js";

const TOKEN_KEY = "tsserve-token";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

// Shows the token prompt; resolves true when a token was given.
export function askToken(why) {
  const dialog = byId("token-dialog");
  const input = byId("token-input");
  byId("token-why").textContent = why;
  input.value = token();
  dialog.hidden = false;
  input.focus();
  return new Promise((resolve) => {
    const finish = (given) => {
      dialog.hidden = true;
      byId("token-save").onclick = null;
      byId("token-cancel").onclick = null;
      input.onkeydown = null;
      if (given) sessionStorage.setItem(TOKEN_KEY, input.value.trim());
      resolve(given);
    };
    byId("token-save").onclick = () => finish(true);
    byId("token-cancel").onclick = () => finish(false);
    input.onkeydown = (event) => {
      if (event.key === "Enter") finish(true);
      if (event.key === "Escape") finish(false);
    };
  });
}

// The decoded JSON answer of `path`; throws ApiError with the server's message.
export async function api(path, { method = "GET", body } = {}) {
  for (;;) {
    const headers = {};
    if (token()) headers["Authorization"] = "Bearer " + token();
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let answer = null;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = null;
    }
    const message = answer && answer.error ? answer.error : text;
    if (response.status === 401) {
      const why = token() ? "The server refused this token: " + message : "This server asks for a bearer token.";
      if (await askToken(why)) continue;
      throw new ApiError(401, message);
    }
    if (!response.ok) throw new ApiError(response.status, message);
    return answer;
  }
}

// The JSON API's path of a model version: /v1/models/M/versions/V.
export function versionPath(model, version) {
  return "/v1/models/" + encodeURIComponent(model) + "/versions/" + encodeURIComponent(version);
}

// Whether `path` answers (HEAD), for optional files such as the sample CSV.
export async function exists(path) {
  try {
    const response = await fetch(path, { method: "HEAD" });
    return response.ok;
  } catch {
    return false;
  }
}
