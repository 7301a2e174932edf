// A setup file of the projects whose tests start a real service (Postgres, nginx, HAProxy, Chromium). In the test
// command each file waits here, outside every hook's timeout, for the step that installs the missing services (at once
// when none was missing: scripts/test/step-markers.mjs); a failed install fails the file with its reason.
import { servicesInstalled } from '../scripts/test/step-markers.mjs';

await servicesInstalled();
