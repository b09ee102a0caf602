// The console's entry: the views behind the tabs (#models, #forecast, #attention,
// #accuracy), the token button. Each view is a module of its own.

import { askToken } from "./api.js";
import { byId, setStatus } from "./dom.js";
import { initAccuracy, showAccuracy } from "./accuracy_view.js";
import { initAttention } from "./attention_view.js";
import { initForecast, refreshForecastModels } from "./forecast_view.js";
import { initModels, refreshModels } from "./models_view.js";

const VIEWS = ["models", "forecast", "attention", "accuracy"];

function report(promise) {
  promise.catch((error) => setStatus(error.message, true));
}

function show() {
  const name = VIEWS.includes(location.hash.slice(1)) ? location.hash.slice(1) : "models";
  for (const view of VIEWS) {
    byId(view).hidden = view !== name;
    document.querySelector('nav a[data-view="' + view + '"]').classList.toggle("active", view === name);
  }
  showAccuracy(name === "accuracy");
  if (name === "models") report(refreshModels());
  if (name === "forecast") report(refreshForecastModels());
}

initModels();
initForecast();
initAttention();
initAccuracy();
byId("token-button").addEventListener("click", () =>
  report(askToken("The bearer token for this server, kept for this tab only.").then(show)),
);
window.addEventListener("hashchange", show);
show();
