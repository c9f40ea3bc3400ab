// /proc/<pid>/stat lines (Linux): "pid (comm) state ppid ...". The command name may hold spaces
// and parentheses, so the fields are read after the last ')'.

/** The fields after "pid (comm)": [0] is the state, [1] the ppid, [11..14] utime stime cutime cstime. */
export function statFieldsAfterComm(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The command name between the parentheses. */
export function statComm(stat: string): string {
  return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
}
