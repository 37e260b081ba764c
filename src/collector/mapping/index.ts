// The site's property and building objects → the contract record. Pure functions, no I/O.
export { mapProperty, type MappedProperty } from './property.js';
export { mapBuilding } from './building.js';
export { statusOf, type Status, type Listing } from './status.js';
