export interface User {
  id: number;
  email: string;
}

export function greet(user: User): string {
  const greeting: number = `hello ${user.email}`;
  return greeting;
}

export function findUser(users: User[], id: string): User | undefined {
  return users.find((u) => u.id == id);
}
