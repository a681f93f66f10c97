// The built-in solver (D23), the default implementation of `Solver`.
export { BuiltInSolver } from './built-in-solver';
