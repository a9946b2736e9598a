// What the dashboard needs from the light service: the HTTP API's view of it (service-api.ts) plus the events
// that feed the page, the cached views, the live refresh's reads and the doctor's report. A LightService has all of
// it; an object without events (a test double of the v1 API) simply gets no dashboard.

import type { LightService } from '../../index.js';
import type { LightApi } from '../service-api.js';

export type DashboardService = LightApi &
  Pick<LightService, 'views' | 'light' | 'on' | 'off' | 'started' | 'refreshLight' | 'doctorReport'> &
  // A light's parts (a Ceiling's uplight): a service that has none to say offers none.
  Partial<Pick<LightService, 'parts'>>;

/** Whether `service` can feed a dashboard (it emits the service's events and lists its views). */
export function canFeedDashboard(service: LightApi): service is DashboardService {
  const s = service as Partial<DashboardService>;
  return (
    typeof s.on === 'function' &&
    typeof s.off === 'function' &&
    typeof s.views === 'function' &&
    typeof s.light === 'function' &&
    typeof s.refreshLight === 'function' &&
    typeof s.doctorReport === 'function'
  );
}
