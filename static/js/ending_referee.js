// The referee's half of the end of a game (ending.js): asking the server for the rematch, with this
// phone's secret of the finished table. Loaded by the referee page only, so that a table view never
// downloads the API's client.
import { api } from "./api.js";
import { offerRematch } from "./ending.js";

offerRematch(api.rematch);
