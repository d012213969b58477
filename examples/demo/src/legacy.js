var counter = 0;

export function bump(step) {
  let next = counter + step;
  debugger;
  const leftover = "never read";
  return next;
}
