// What the views share: the models' info as last fetched, and the last forecast (its
// window, the request's choices and the server's answer), which the attention view
// explores.

export const state = {
  infos: new Map(), // "model/version" -> the GET /v1/models/{m}/versions/{v} answer
  forecast: null, // {model, version, info, window: {times, columns}, response}
  listeners: [],
};

export function infoKey(model, version) {
  return model + "/" + version;
}

export function publishForecast(forecast) {
  state.forecast = forecast;
  for (const listener of state.listeners) listener(forecast);
}

export function onForecast(listener) {
  state.listeners.push(listener);
}
