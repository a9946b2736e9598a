// The dashboard page's script, served as /dashboard.js: plain browser JavaScript (ES2019, no framework, no build
// step), kept in a string so that tsc carries it into the build output with everything else. It must not contain
// a backtick or a dollar-brace (each part is a String.raw template). test/http/dashboard checks that it parses.
//
// What it does: reads the CSRF token from the page, opens the event stream (/events), keeps one card per light
// grouped by location and group, applies changes in one animation frame, and sends the user's actions to
// /api/action with the CSRF header. The health panel reads /api/doctor.
//
// In four parts by job, one script with one function scope when joined (the first part opens it, the last closes
// it): the light cards (client-js-lights.ts), what strips and matrix lights show, themes and the pixel editor
// (client-js-picture.ts), the server and the user's actions (client-js-control.ts), the health panel
// (client-js-health.ts).

import { CONTROL_JS } from './client-js-control.js';
import { HEALTH_JS } from './client-js-health.js';
import { LIGHTS_JS } from './client-js-lights.js';
import { PICTURE_JS } from './client-js-picture.js';

export const DASHBOARD_JS = LIGHTS_JS + PICTURE_JS + CONTROL_JS + HEALTH_JS;
