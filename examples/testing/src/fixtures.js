/** Orders the tests publish, and the totals they should come to. */
export const ORDERS = [
  { id: 1, customer: 'ada', amount: 30 },
  { id: 2, customer: 'grace', amount: 12 },
  { id: 3, customer: 'ada', amount: 5 },
  { id: 4, customer: 'linus', amount: 7 },
  { id: 5, customer: 'grace', amount: 1 },
];

export const TOTALS = { ada: 35, grace: 13, linus: 7 };
