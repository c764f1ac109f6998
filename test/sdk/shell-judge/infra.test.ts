// Destructive cloud, cluster, container and database CLIs (`infra-destroy`, and the SQL keys for SQL
// clients), with their everyday look-alikes. Frameworks' database resets: infra-frameworks.test.ts.
// String literals only: nothing here is run.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { FINDINGS } from '../../../sdk/shell-judge/index.ts'
import { assertFlagged, assertHarmless } from './cases.ts'

test('infra-destroy is a dangerous finding with a description', () => {
  assert.equal(FINDINGS['infra-destroy'].tier, 'dangerous')
  assert.match(FINDINGS['infra-destroy'].description, /destroy cloud, cluster or database/)
})

test('infrastructure as code: destroy, and apply without confirmation', async () => {
  await assertFlagged([
    ['terraform destroy', 'infra-destroy'],
    ['terraform -chdir=infra destroy -target=aws_instance.web', 'infra-destroy'],
    ['terraform apply -auto-approve', 'infra-destroy'],
    ['terraform apply --auto-approve=true', 'infra-destroy'],
    ['terraform apply -destroy', 'infra-destroy'],
    ['tofu destroy', 'infra-destroy'],
    ['terragrunt run-all destroy', 'infra-destroy'],
    ['sudo -E terraform destroy', 'infra-destroy'],
    ['pulumi destroy --yes', 'infra-destroy'],
    ['pulumi -C infra down', 'infra-destroy'],
    ['pulumi stack rm dev', 'infra-destroy'],
    ['pulumi up -y', 'infra-destroy'],
    // A saved plan applies without asking.
    ['terraform apply tfplan', 'infra-destroy'],
    ['terraform apply -input=false -var env=prod plan.out', 'infra-destroy'],
    ['terraform -chdir=infra apply -- plan.out', 'infra-destroy'],
    ['tofu apply out.tfplan', 'infra-destroy'],
    ['terragrunt apply tfplan', 'infra-destroy'],
  ])
  await assertHarmless(['terraform plan', 'terraform plan -destroy', 'terraform plan -out tfplan', 'terraform apply', 'terraform apply -auto-approve=false', 'terraform apply -var env=prod -var-file prod.tfvars -target aws_instance.web', 'tofu apply -lock-timeout 60s', 'terraform init', 'tofu validate', 'pulumi preview', 'pulumi up'])
})

test('clusters: kubectl delete (all but single named pods), kubectl drain, helm uninstall', async () => {
  await assertFlagged([
    ['kubectl delete namespace prod', 'infra-destroy'],
    ['kubectl delete ns/prod', 'infra-destroy'],
    ['kubectl delete all --all', 'infra-destroy'],
    ['kubectl -n prod delete pods --all', 'infra-destroy'],
    ['kubectl delete pods -l app=web', 'infra-destroy'],
    ['kubectl delete deployment web', 'infra-destroy'],
    ['kubectl delete -f app.yaml', 'infra-destroy'],
    ['helm uninstall web', 'infra-destroy'],
    ['helm -n prod delete web', 'infra-destroy'],
    ['kubectl drain node-1 --ignore-daemonsets', 'infra-destroy'],
    ['kubectl --context prod drain node-1', 'infra-destroy'],
  ])
  await assertHarmless(['kubectl get pods', 'kubectl get nodes', 'kubectl cordon n1', 'kubectl uncordon n1', 'kubectl -n delete get pods', 'kubectl delete pod web-1', 'kubectl delete pod/web-1', 'kubectl describe ns prod', 'helm list', 'helm upgrade --install web ./chart'])
})

test('clouds: aws, gcloud, gsutil, az', async () => {
  await assertFlagged([
    ['aws s3 rm s3://bucket --recursive', 'infra-destroy'],
    ['aws s3 rb s3://bucket --force', 'infra-destroy'],
    ['aws ec2 terminate-instances --instance-ids i-0abc', 'infra-destroy'],
    ['aws --profile prod rds delete-db-instance --db-instance-identifier db', 'infra-destroy'],
    ['env AWS_PROFILE=prod aws s3 rm --recursive s3://bucket/logs', 'infra-destroy'],
    ['gcloud compute instances delete vm1 --zone europe-west1-b', 'infra-destroy'],
    ['gcloud projects delete my-project', 'infra-destroy'],
    ['gcloud storage rm -r gs://bucket', 'infra-destroy'],
    ['gsutil -m rm -r gs://bucket', 'infra-destroy'],
    ['az group delete -n rg --yes', 'infra-destroy'],
    ['az keyvault purge --name kv', 'infra-destroy'],
  ])
  await assertHarmless(['aws s3 ls', 'aws s3 cp a.txt s3://bucket/a.txt', 'aws ec2 describe-instances', 'aws ec2 terminate-instances --dry-run --instance-ids i-0abc', 'gcloud compute instances list', 'gsutil ls gs://bucket', 'az group list'])
})

test('smaller clouds and hosting platforms: their delete and destroy verbs', async () => {
  await assertFlagged([
    ['doctl compute droplet delete web-1 --force', 'infra-destroy'],
    ['doctl compute droplet rm web-1', 'infra-destroy'],
    ['doctl -t tok databases delete db-1', 'infra-destroy'],
    ['doctl registry repository delete-tag app v1', 'infra-destroy'],
    ['hcloud server delete web-1', 'infra-destroy'],
    ['hcloud server rebuild web-1 --image ubuntu-24.04', 'infra-destroy'],
    ['linode-cli linodes delete 123', 'infra-destroy'],
    ['linode-cli linodes disk-delete 123 456', 'infra-destroy'],
    ['oci compute instance terminate --instance-id ocid1.instance.x --force', 'infra-destroy'],
    ['oci os bucket delete --name b', 'infra-destroy'],
    ['oci os object bulk-delete -bn b', 'infra-destroy'],
    ['fly apps destroy web -y', 'infra-destroy'],
    ['flyctl destroy web', 'infra-destroy'],
    ['fly volumes destroy vol_123 --yes', 'infra-destroy'],
    ['fly -a web machine rm 148e', 'infra-destroy'],
    ['heroku apps:destroy -a web --confirm web', 'infra-destroy'],
    ['heroku pg:reset DATABASE_URL --confirm web', 'infra-destroy'],
    ['heroku addons:destroy heroku-postgresql', 'infra-destroy'],
    ['vercel remove my-project --yes', 'infra-destroy'],
    ['vercel rm my-app.vercel.app', 'infra-destroy'],
    ['vercel project rm my-project', 'infra-destroy'],
    ['netlify sites:delete site-id', 'infra-destroy'],
    ['firebase firestore:delete --all-collections', 'infra-destroy'],
    ['firebase firestore:delete users -r --force', 'infra-destroy'],
    ['firebase database:remove /users', 'infra-destroy'],
    ['supabase db reset', 'infra-destroy'],
    ['npx supabase db reset --linked', 'infra-destroy'],
    ['supabase stop --no-backup', 'infra-destroy'],
    ['supabase projects delete abcd', 'infra-destroy'],
  ])
  await assertHarmless([
    'doctl compute droplet list',
    'doctl apps create --spec app.yaml',
    'hcloud server list',
    'linode-cli linodes list',
    'oci compute instance list --compartment-id c',
    'fly deploy',
    'fly apps list',
    'heroku logs --tail',
    'heroku apps:info -a web',
    'vercel deploy --prod',
    'vercel env ls',
    'netlify deploy --prod',
    'firebase deploy',
    'firebase firestore:delete users/u1',
    'supabase start',
    'supabase stop',
    'supabase db push',
  ])
})

test('data stores: FLUSHALL, mongo drops, dropdb, SQL given to clients', async () => {
  await assertFlagged([
    ['redis-cli FLUSHALL', 'infra-destroy'],
    ['redis-cli -n 2 flushdb', 'infra-destroy'],
    ['echo FLUSHALL | redis-cli', 'infra-destroy'],
    ['docker exec cache redis-cli flushall', 'infra-destroy'],
    ["mongo --eval 'db.dropDatabase()'", 'infra-destroy'],
    ["mongosh app --eval 'db.users.drop()'", 'infra-destroy'],
    ["mongosh <<'EOF'\ndb.dropDatabase()\nEOF", 'infra-destroy'],
    ['dropdb prod', 'infra-destroy'],
    ['mysqladmin -u root drop prod', 'infra-destroy'],
    ["psql -c 'DROP DATABASE prod'", 'sql-drop'],
    ["mysql -e 'DROP TABLE users'", 'sql-drop'],
    ["mysql -e 'TRUNCATE TABLE users'", 'sql-truncate'],
  ])
  await assertHarmless(['redis-cli GET k', 'redis-cli GET flushall_count', "psql -c 'select 1'", "mongosh --eval 'db.users.find()'", 'mysqladmin status'])
})

test('containers: volumes and everything pruned are infra-destroy too', async () => {
  await assertFlagged([
    ['docker system prune -a', 'infra-destroy'],
    ['docker system prune --volumes', 'infra-destroy'],
    ['docker volume rm data', 'infra-destroy'],
    ['docker volume prune', 'infra-destroy'],
    ['docker -H tcp://host:2375 volume rm data', 'infra-destroy'],
    ['docker compose down -v', 'infra-destroy'],
    ['docker-compose down --volumes', 'infra-destroy'],
    ['podman volume rm data', 'infra-destroy'],
    ['docker compose -f x.yml down', 'container-destructive'],
    ['docker system prune', 'container-destructive'],
  ])
  await assertHarmless(['docker ps', 'docker volume ls', 'docker compose up -d', 'docker -H tcp://host:2375 ps'])
})
