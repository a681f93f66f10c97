import { GraphQLID, GraphQLInt, GraphQLObjectType, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import { z } from 'zod';
import { validationFailed } from '../../../domain/errors/errors';
import { routesDayWithin } from '../../fsm/daily-route-service';
import type { Route } from '../../fsm/routing-schemas';
import { listOf, nonNull, sized, sizeArg, type Context } from './common';

/** D23 with D17: a day's routes, read by the same code as GET /v1/fsm/routes. */

const RouteStop = new GraphQLObjectType<Route['stops'][number], Context>({
  name: 'RouteStop',
  description: 'A stop of a route: local times of the workspace (`etaLocal` YYYY-MM-DDTHH:mm).',
  fields: {
    sequence: { type: nonNull(GraphQLInt) },
    jobId: { type: nonNull(GraphQLID) },
    etaLocal: { type: nonNull(GraphQLString) },
    departLocal: { type: nonNull(GraphQLString) },
    windowStart: { type: nonNull(GraphQLString) },
    windowEnd: { type: nonNull(GraphQLString) },
    driveMinutesFromPrevious: { type: nonNull(GraphQLInt) },
    status: { type: nonNull(GraphQLString) },
  },
});

const RouteViolation = new GraphQLObjectType<Route['violations'][number], Context>({
  name: 'RouteViolation',
  description: 'What a sequence breaks: a time with its minutes, or a constraint (0 minutes).',
  fields: { jobId: { type: nonNull(GraphQLID) }, code: { type: nonNull(GraphQLString) }, minutes: { type: nonNull(GraphQLInt) } },
});

const RouteType = new GraphQLObjectType<Route, Context>({
  name: 'Route',
  description: 'One crew\'s working day; `revision` increases with every change of it.',
  fields: {
    id: { type: GraphQLID },
    date: { type: nonNull(GraphQLString) },
    crewId: { type: nonNull(GraphQLID) },
    assigneeId: { type: nonNull(GraphQLID), description: 'The crew\'s foreman.' },
    shiftStart: { type: nonNull(GraphQLString), resolve: (r) => r.shift.start },
    shiftEnd: { type: nonNull(GraphQLString), resolve: (r) => r.shift.end },
    totalDriveMinutes: { type: nonNull(GraphQLInt) },
    overtimeMinutes: { type: nonNull(GraphQLInt) },
    travelTimeSource: { type: nonNull(GraphQLString) },
    revision: { type: GraphQLInt },
    stops: { type: listOf(RouteStop), ...sized(20, 200), resolve: (r, args: { first?: number | null }) => r.stops.slice(0, sizeArg(args, 20, 200, 'stops')) },
    violations: { type: listOf(RouteViolation), ...sized(20, 200), resolve: (r, args: { first?: number | null }) => r.violations.slice(0, sizeArg(args, 20, 200, 'violations')) },
  },
});

type Unassigned = { jobId: string; reasons?: { code: string; detail: string; crewId: string }[] | undefined };

const RouteReason = new GraphQLObjectType<{ code: string; detail: string; crewId: string }, Context>({
  name: 'RouteReason',
  description: 'Why a crew could not take a job (one of a closed list of codes), with its values.',
  fields: { code: { type: nonNull(GraphQLString) }, detail: { type: nonNull(GraphQLString) }, crewId: { type: nonNull(GraphQLID) } },
});

const UnassignedJob = new GraphQLObjectType<Unassigned, Context>({
  name: 'UnassignedJob',
  fields: {
    jobId: { type: nonNull(GraphQLID) },
    reasons: { type: listOf(RouteReason), ...sized(10, 100), resolve: (u, args: { first?: number | null }) => (u.reasons ?? []).slice(0, sizeArg(args, 10, 100, 'reasons')) },
  },
});

const RouteDay = new GraphQLObjectType<{ date: string; data: Route[]; unassigned: Unassigned[] }, Context>({
  name: 'RouteDay',
  description: 'A day\'s routes and its jobs no route holds (a TECHNICIAN: their crews\' routes only).',
  fields: {
    date: { type: nonNull(GraphQLString) },
    routes: { type: listOf(RouteType), ...sized(20, 64), resolve: (d, args: { first?: number | null }) => d.data.slice(0, sizeArg(args, 20, 64, 'routes')) },
    unassigned: { type: listOf(UnassignedJob), ...sized(20, 200), resolve: (d, args: { first?: number | null }) => d.unassigned.slice(0, sizeArg(args, 20, 200, 'unassigned')) },
  },
});

export const routeQueries: GraphQLFieldConfigMap<unknown, Context> = {
  routes: {
    type: nonNull(RouteDay),
    description: 'The routes of a local date (YYYY-MM-DD), as GET /v1/fsm/routes answers them.',
    args: { date: { type: nonNull(GraphQLString) } },
    resolve: async (_root, args: { date: string }, ctx) => {
      if (!z.iso.date().safeParse(args.date).success) throw validationFailed({ date: 'A date, YYYY-MM-DD.' });
      return routesDayWithin(ctx.tx, ctx.caller, args.date);
    },
  },
};
