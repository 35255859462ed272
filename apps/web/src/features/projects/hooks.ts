import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { listProjects } from './api';

export const useProjects = () => useQuery({ queryKey: queryKeys.projects, queryFn: listProjects });
