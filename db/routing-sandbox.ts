/**
 * D1 with D23: the sandbox's routing data, so that `npm start` on a fresh clone can plan a day.
 * Data, read by the seed, the README and the tests alike.
 */
export const SANDBOX_DEPOT = { lat: 43.6532, lon: -79.3832 } as const;

/** The sandbox's busy day: a Thursday. */
export const SANDBOX_ROUTE_DATE = '2026-12-03';

/** Marks the seeded jobs (a second seed finds them and adds none). */
export const SANDBOX_ROUTE_NOTE = 'D23 sandbox route day';

/** Technicians' skills and hours (by email); one without `weekly` keeps D23's default week. */
export const SANDBOX_TECHNICIANS = [
  { email: 'tech@sandbox.test', skills: ['large_format', 'motorisation'], weekly: null },
  {
    email: 'tech2@sandbox.test',
    skills: ['high_reach'],
    weekly: (['mon', 'tue', 'wed', 'thu', 'fri'] as const).map((day) => ({ day, start: '07:00', end: '15:30', break_minutes: 30 })),
  },
] as const;

export interface SandboxRouteJob {
  address: string;
  lat: number;
  lon: number;
  /** The crew's foreman (the job's crew before any plan). */
  foreman: string;
  window?: [string, string];
  durationMinutes: number;
  skills?: string[];
}

/** Sites in and around Toronto, a day of jobs for two crews. */
export const SANDBOX_ROUTE_JOBS: readonly SandboxRouteJob[] = [
  { address: '100 Queen St W, Toronto', lat: 43.6525, lon: -79.3839, foreman: 'tech@sandbox.test', durationMinutes: 60 },
  { address: '1 Bloor St E, Toronto', lat: 43.6707, lon: -79.3857, foreman: 'tech@sandbox.test', window: ['09:00', '12:00'], durationMinutes: 90, skills: ['motorisation'] },
  { address: '2300 Yonge St, Toronto', lat: 43.7067, lon: -79.3985, foreman: 'tech@sandbox.test', durationMinutes: 75 },
  { address: '3401 Dufferin St, Toronto', lat: 43.7254, lon: -79.4522, foreman: 'tech2@sandbox.test', window: ['13:00', '15:00'], durationMinutes: 60 },
  { address: '100 City Centre Dr, Mississauga', lat: 43.5931, lon: -79.6424, foreman: 'tech2@sandbox.test', durationMinutes: 120, skills: ['large_format'] },
  { address: '300 Borough Dr, Scarborough', lat: 43.7756, lon: -79.2578, foreman: 'tech2@sandbox.test', durationMinutes: 60, skills: ['high_reach'] },
  { address: '1 Bass Pro Mills Dr, Vaughan', lat: 43.8255, lon: -79.5385, foreman: 'tech@sandbox.test', window: ['08:00', '11:00'], durationMinutes: 45 },
  { address: '25 The West Mall, Etobicoke', lat: 43.6121, lon: -79.5571, foreman: 'tech2@sandbox.test', durationMinutes: 60 },
  { address: '900 Dufferin St, Toronto', lat: 43.6561, lon: -79.4357, foreman: 'tech@sandbox.test', window: ['14:00', '16:30'], durationMinutes: 60 },
  { address: '1800 Sheppard Ave E, North York', lat: 43.7785, lon: -79.3440, foreman: 'tech2@sandbox.test', durationMinutes: 90 },
];
